package wire

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/httpclient"
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

// countingConn counts the writes its connection makes.
type countingConn struct {
	net.Conn
	writes *atomic.Int32
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// sdkBody stands for the SDKs' wrapper around a request body.
type sdkBody struct{ io.ReadCloser }

// A model request of a chat with some history goes to the socket in one
// write, headers and body together.
func TestRequestGoesInOneWrite(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "{}")
	}))
	defer srv.Close()
	client := HTTPClient(nil, 0)
	tr := client.Transport.(httpclient.Deadline).Next.(replayedBody).next.(*http.Transport)
	var writes atomic.Int32
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		return countingConn{c, &writes}, err
	}
	body := strings.Repeat(`{"role":"user","content":"I'm at stop 4 by the clock tower, where is the next clue?"},`, 200) // ~16 KB
	// As the SDKs send it: their own wrapper around the body, which they
	// can replay with GetBody.
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	req.Body = sdkBody{req.Body}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if n := writes.Load(); n != 1 {
		t.Errorf("a %d-byte request took %d writes, want 1", len(body), n)
	}
}

// APIFailure reads each vendor's error body: OpenAI's error object (the
// SDK hands over what is under "error"), Anthropic's whole body, and a
// compatible server's numeric code (OpenRouter).
func TestAPIFailure(t *testing.T) {
	res := &http.Response{Header: http.Header{"Retry-After": {"7"}}}
	for _, tc := range []struct {
		body      string
		code, msg string
	}{
		{`{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}`, "rate_limit_exceeded", "Rate limit reached"},
		{`{"message":"The server had an error","type":"server_error","param":null,"code":null}`, "server_error", "The server had an error"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}`, "overloaded_error", "Overloaded"},
		{`{"error":{"code":429,"message":"Rate limit exceeded: free-models-per-min"}}`, "429", "Rate limit exceeded: free-models-per-min"},
		{`<html>Bad Gateway</html>`, "", ""},
	} {
		f := APIFailure(429, res, tc.body)
		if f.Status != 429 || f.Code != tc.code || f.Msg != tc.msg || RetryAfter(f.Header) != 7*time.Second {
			t.Errorf("%s: %+v, want code %q message %q and the answer's Retry-After", tc.body, f, tc.code, tc.msg)
		}
	}
}
