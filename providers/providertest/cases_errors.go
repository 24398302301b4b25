package providertest

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

var errorCases = []suiteCase{
	{"errors/rate-limit-carries-retry-after", rateLimitCarriesRetryAfter},
	{"errors/rate-limit-retried-after-retry-after", rateLimitRetried},
	{"errors/server-errors-retried", serverErrorsRetried},
	{"errors/permanent", permanentErrors},
}

// withHeader answers like a, with the header k: v added.
func withHeader(a Answer, k, v string) Answer {
	h := map[string]string{k: v}
	for hk, hv := range a.Header {
		h[hk] = hv
	}
	a.Header = h
	return a
}

// A rate limit the provider does not retry itself is a retryable error
// carrying the API's Retry-After, so the gateway waits as long as asked.
func rateLimitCarriesRetryAfter(t *testing.T, h Harness) {
	limited, code, _ := h.Wire.Error(http.StatusTooManyRequests)
	e := start(t, h, Always(withHeader(limited, "Retry-After", "7")))
	e.cfg.MaxRetries = -1
	_, err := e.complete(t, hi())
	pe := e.providerError(t, err)
	if pe.Status != 429 || pe.Code != code || pe.RetryAfter != 7*time.Second || !pe.Retryable() {
		t.Errorf("error: status %d code %q retry after %s retryable %v; want 429 %q 7s true",
			pe.Status, pe.Code, pe.RetryAfter, pe.Retryable(), code)
	}
	if n := len(e.sent()); n != 1 {
		t.Errorf("the API received %d requests with retries off, want 1", n)
	}
}

// A rate limit is retried once Retry-After has passed, never sooner, and
// every attempt is observed (the metrics), the second as a retry.
func rateLimitRetried(t *testing.T, h Harness) {
	limited, _, _ := h.Wire.Error(http.StatusTooManyRequests)
	e := start(t, h, Script(func(n int) Answer {
		if n == 0 {
			return withHeader(limited, "Retry-After", "1")
		}
		return h.Wire.Text("made it", Usage{Input: 5, Output: 2})
	}))
	var mu sync.Mutex
	var attempts []string
	e.cfg.Observe = func(status int, retry bool) {
		mu.Lock()
		defer mu.Unlock()
		attempts = append(attempts, fmt.Sprintf("%d retry=%v", status, retry))
	}
	reply, err := e.complete(t, hi())
	if err != nil || reply.Text != "made it" {
		t.Fatalf("reply = %+v, %v; want the answer of the retry", reply, err)
	}
	sent := e.sent()
	if len(sent) != 2 {
		t.Fatalf("the API received %d requests, want 2", len(sent))
	}
	if gap := sent[1].At.Sub(sent[0].At); gap < time.Second {
		t.Errorf("retried after %s, before the 1s Retry-After", gap)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"429 retry=false", "200 retry=true"}; !slices.Equal(attempts, want) {
		t.Errorf("observed attempts %q, want %q", attempts, want)
	}
}

// Server errors and an overloaded API are retried as configured, then a
// retryable error with the API's status and code.
func serverErrorsRetried(t *testing.T, h Harness) {
	for _, status := range []int{http.StatusInternalServerError, h.Wire.Busy()} {
		failed, code, _ := h.Wire.Error(status)
		e := start(t, h, Always(withHeader(failed, "Retry-After-Ms", "10")))
		e.cfg.MaxRetries = 1
		_, err := e.complete(t, hi())
		pe := e.providerError(t, err)
		if pe.Status != status || pe.Code != code || !pe.Retryable() {
			t.Errorf("%d: error status %d code %q retryable %v, want %d %q true", status, pe.Status, pe.Code, pe.Retryable(), status, code)
		}
		if n := len(e.sent()); n != 2 {
			t.Errorf("%d: the API received %d requests with one retry, want 2", status, n)
		}
	}
}

// A bad request or a wrong key is never retried: the error is permanent
// and shows the API's own message.
func permanentErrors(t *testing.T, h Harness) {
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized} {
		failed, code, msg := h.Wire.Error(status)
		e := start(t, h, Always(failed))
		e.cfg.MaxRetries = 2
		_, err := e.complete(t, hi())
		pe := e.providerError(t, err)
		if pe.Status != status || pe.Code != code || pe.Retryable() {
			t.Errorf("%d: error status %d code %q retryable %v, want %d %q false", status, pe.Status, pe.Code, pe.Retryable(), status, code)
		}
		if pe.Err == nil || pe.Err.Error() != msg {
			t.Errorf("%d: error says %v, want the API's message %q", status, pe.Err, msg)
		}
		if n := len(e.sent()); n != 1 {
			t.Errorf("%d: the API received %d requests, want 1", status, n)
		}
	}
}
