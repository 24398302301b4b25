package main

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// TestVersionPrintsTheRelease: `botgw version` (and --version) print the
// release the changelog names, and nothing else.
func TestVersionPrintsTheRelease(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{arg}, &out, io.Discard); err != nil {
			t.Fatalf("botgw %s: %v", arg, err)
		}
		if got := out.String(); got != "botgw 0.1.0\n" {
			t.Errorf("botgw %s printed %q, want %q", arg, got, "botgw 0.1.0\n")
		}
	}
}
