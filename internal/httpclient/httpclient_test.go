package httpclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A request the deadline ends says how long it waited; the caller's own
// cancellation stays context.Canceled, and D 0 sets no deadline.
func TestDeadlineSaysWhatEndedTheRequest(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done() // never answers
	}))
	defer srv.Close()
	get := func(ctx context.Context, d time.Duration) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := (&http.Client{Transport: Deadline{Next: Transport(4), D: d}}).Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return err
	}
	err := get(t.Context(), 50*time.Millisecond)
	<-arrived
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Errorf("ended by the deadline: %v, want it to say so", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-arrived; cancel() }()
	if err := get(ctx, 0); !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "no answer within") {
		t.Errorf("cancelled by the caller with no deadline: %v, want context.Canceled only", err)
	}
}
