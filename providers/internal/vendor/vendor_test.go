package vendor

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"sync"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"3"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{}, 0},
	} {
		if got := RetryAfter(tc.h); got != tc.want {
			t.Errorf("RetryAfter(%v) = %s, want %s", tc.h, got, tc.want)
		}
	}
	date := http.Header{"Retry-After": {time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}}
	if got := RetryAfter(date); got < 59*time.Minute {
		t.Errorf("HTTP-date Retry-After = %s, want about 1h", got)
	}
}

// A burst of slow calls ending together keeps its connections for the next
// burst: none is closed as one idle connection too many and dialled again.
func TestBurstOfCallsKeepsItsConnections(t *testing.T) {
	const calls = 300
	var arrived sync.WaitGroup
	arrived.Add(calls)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Done()
		arrived.Wait() // every call is in flight at once, as under a slow model
		io.WriteString(w, "{}")
	}))
	defer srv.Close()
	client := HTTPClient(nil, 0)
	var wg sync.WaitGroup
	closed := make(chan error, calls)
	for range calls {
		wg.Go(func() {
			trace := &httptrace.ClientTrace{PutIdleConn: func(err error) {
				if err != nil {
					closed <- err
				}
			}}
			req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), http.MethodPost, srv.URL, nil)
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	wg.Wait()
	if n := len(closed); n > 0 {
		t.Errorf("%d of %d connections were closed after the burst (%v), to be dialled again", n, calls, <-closed)
	}
}
