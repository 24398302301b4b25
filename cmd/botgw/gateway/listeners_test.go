package gateway

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"

	"github.com/botgw/botgw"
)

// ctxListener is a botgw.Listener that exposes the context it listens on.
type ctxListener struct {
	mu      sync.Mutex
	ctx     context.Context
	started chan struct{}
	err     error
}

func (l *ctxListener) Name() string                               { return "whatsapp" }
func (l *ctxListener) Send(context.Context, botgw.Outbound) error { return nil }
func (l *ctxListener) Listen(ctx context.Context, _ botgw.Deliver) error {
	l.mu.Lock()
	l.ctx = ctx
	l.mu.Unlock()
	close(l.started)
	if l.err != nil {
		return l.err
	}
	<-ctx.Done()
	return nil
}

func (l *ctxListener) listening() context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ctx
}

// At SIGTERM the WhatsApp listener (whose connection carries the replies)
// keeps running while the engine drains; only stop ends it.
func TestListenersOutliveShutdownUntilStopped(t *testing.T) {
	l := &ctxListener{started: make(chan struct{})}
	ctx, sigterm := context.WithCancel(context.Background())
	ls := startListeners(ctx, []botgw.Channel{l}, nil, func(error) {}, slog.New(slog.DiscardHandler))
	<-l.started
	sigterm()
	if err := l.listening().Err(); err != nil {
		t.Fatalf("listener stopped at SIGTERM (%v): replies of turns in flight could not be sent", err)
	}
	if err := ls.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if l.listening().Err() == nil {
		t.Error("listener still running after stop")
	}
}

// A listener failing stops the gateway.
func TestListenerFailureStopsTheGateway(t *testing.T) {
	boom := errors.New("socket closed for good")
	l := &ctxListener{started: make(chan struct{}), err: boom}
	var got error
	failed := make(chan struct{})
	ls := startListeners(context.Background(), []botgw.Channel{l}, nil, func(err error) { got = err; close(failed) }, slog.New(slog.DiscardHandler))
	<-failed
	if !errors.Is(got, boom) || !errors.Is(ls.stop(), boom) {
		t.Errorf("failure %v not passed on", got)
	}
}
