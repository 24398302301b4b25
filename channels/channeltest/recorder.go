package channeltest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

// Recorder is a botgw.Channel that records every Outbound it accepts.
type Recorder struct {
	name string

	mu       sync.Mutex
	sent     []botgw.Outbound
	failures int
	changed  chan struct{}
}

var _ botgw.Channel = (*Recorder)(nil)

// NewRecorder records sends for the channel called name.
func NewRecorder(name string) *Recorder {
	return &Recorder{name: name, changed: make(chan struct{})}
}

func (r *Recorder) Name() string { return r.name }

// Send records m, or fails with a retryable platform error while failures
// are pending (FailNext).
func (r *Recorder) Send(_ context.Context, m botgw.Outbound) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failures > 0 {
		r.failures--
		return &botgw.PlatformError{Channel: r.name, Status: 502, Err: errors.New("platform unavailable (test)")}
	}
	r.sent = append(r.sent, m)
	close(r.changed)
	r.changed = make(chan struct{})
	return nil
}

// FailNext makes the next n sends fail.
func (r *Recorder) FailNext(n int) {
	r.mu.Lock()
	r.failures = n
	r.mu.Unlock()
}

// Sent returns a copy of everything sent so far, in order.
func (r *Recorder) Sent() []botgw.Outbound {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]botgw.Outbound(nil), r.sent...)
}

// Wait blocks until at least n messages were sent or timeout passes (then
// the test fails), and returns them.
func (r *Recorder) Wait(t testing.TB, n int, timeout time.Duration) []botgw.Outbound {
	t.Helper()
	deadline := time.After(timeout)
	for {
		r.mu.Lock()
		if len(r.sent) >= n {
			out := append([]botgw.Outbound(nil), r.sent...)
			r.mu.Unlock()
			return out
		}
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("channel %s: %d message(s) sent within %s, want %d", r.name, len(r.Sent()), timeout, n)
		}
	}
}
