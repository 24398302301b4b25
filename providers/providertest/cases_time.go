package providertest

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

var timeCases = []suiteCase{
	{"time/attempt-timeout", attemptTimeout},
	{"time/attempt-timeout-retried", attemptTimeoutRetried},
	{"time/caller-cancels", callerCancels},
}

// stall never answers; the client gives up first.
func stall(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// An attempt that gets no answer within the timeout is a retryable
// status-0 error.
func attemptTimeout(t *testing.T, h Harness) {
	e := start(t, h, stall)
	e.cfg.Timeout, e.cfg.MaxRetries = 50*time.Millisecond, -1
	_, err := e.complete(t, hi())
	pe := e.providerError(t, err)
	if pe.Status != 0 || !pe.Retryable() || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v (status %d), want a retryable status-0 deadline", err, pe.Status)
	}
}

// A model that stalls past the attempt timeout is asked again, as
// max_retries promises for timeouts.
func attemptTimeoutRetried(t *testing.T, h Harness) {
	e := start(t, h, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 0 {
			stall(n, w, r)
			return
		}
		h.Wire.Text("second time lucky", Usage{Input: 5, Output: 3}).Write(w)
	})
	e.cfg.Timeout, e.cfg.MaxRetries = time.Second, 2
	reply, err := e.complete(t, hi())
	if err != nil || reply.Text != "second time lucky" {
		t.Fatalf("reply = %+v, %v; want the answer of the retry after the timed-out attempt", reply, err)
	}
	if n := len(e.sent()); n != 2 {
		t.Errorf("the API received %d requests, want 2", n)
	}
}

// A caller that gives up (the turn is cancelled) ends the call at once,
// with context.Canceled, and nothing is retried.
func callerCancels(t *testing.T, h Harness) {
	arrived := make(chan struct{}, 4)
	e := start(t, h, func(n int, w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		stall(n, w, r)
	})
	e.cfg.MaxRetries = 2
	p := e.provider(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := p.Complete(ctx, hi())
		done <- err
	}()
	<-arrived
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second): // a hang guard, not a timing check
		t.Fatal("Complete did not return after its context was cancelled")
	}
	if n := len(e.sent()); n != 1 {
		t.Errorf("the API received %d requests, want 1: a cancelled call is not retried", n)
	}
}
