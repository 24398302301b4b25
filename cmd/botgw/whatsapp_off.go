//go:build nowhatsapp

package main

import (
	"context"
	"io"

	"github.com/botgw/botgw/cmd/botgw/gateway"
)

func cmdWhatsApp(context.Context, []string, io.Writer, io.Writer) error { return gateway.ErrNoWhatsApp }
