package main

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/botgw/botgw/internal/e2e"
)

// serveCLI runs `botgw serve -config path` in-process on a free loopback
// port and returns its base URL once /healthz answers; it stops with the
// test.
func serveCLI(t *testing.T, path string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "-config", path, "-listen", addr}, io.Discard, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	base := "http://" + addr
	e2e.AwaitHealthy(t, base, "botgw serve")
	return base
}
