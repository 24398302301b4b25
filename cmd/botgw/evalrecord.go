package main

import (
	"context"
	"errors"
	"io"
)

func cmdEvalRecord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("eval record: not yet")
}
