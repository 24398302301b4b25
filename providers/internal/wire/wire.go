// Package wire holds what the OpenAI and Anthropic providers share: how
// non-user context is marked, and how vendor errors are read.
package wire

import (
	"net/http"
	"strconv"
	"time"

	"github.com/botgw/botgw/internal/httpclient"
)

// Prefixes mark user-role messages that are not the user's own words.
const (
	EventPrefix   = "[App event] "
	SummaryPrefix = "[Summary of earlier conversation] "
)

// Error shows the vendor's own message (the SDKs' messages repeat the URL,
// the status and the raw body) and keeps the SDK error in the chain for
// errors.As.
type Error struct {
	Msg string
	Err error
}

func (e Error) Error() string { return e.Msg }
func (e Error) Unwrap() error { return e.Err }

// RetryAfter reads Retry-After-Ms, then Retry-After (seconds or an HTTP
// date); 0 when neither is usable.
func RetryAfter(h http.Header) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// maxIdlePerHost is how many idle connections a provider client keeps to
// the model's host: as many as calls may be in flight at once
// (provider.max_concurrency's default), since a slow model holds one
// connection per call. It matters for HTTP/1.1 servers (Ollama, vLLM, a
// local proxy); HTTP/2 hosts multiplex over one anyway.
const maxIdlePerHost = 1024

// writeBuffer holds a whole model request of a chat with some history
// (the system prompt, tools and the kept exchanges: several KB), so it goes
// to the socket in one write; net/http's 4 KB default splits most of them.
const writeBuffer = 32 << 10

// Observer hears of every HTTP attempt to a model API: its status (0 for
// a transport error or timeout) and whether it was one of the SDK's
// retries. It runs inline and must be fast.
type Observer func(status int, retry bool)

// HTTPClient is the SDKs' HTTP client: a transport keeping up to
// maxIdlePerHost idle connections per host, ending each attempt after
// attempt (0: no limit), and reporting each attempt to observe when it is
// set.
//
// The attempt timeout lives here, not in the SDKs' WithRequestTimeout:
// openai-go gives up without retrying when its own per-attempt context
// expires, while a transport error (which this timeout is to it) is
// retried with backoff like a 5xx, as max_retries promises. Both SDKs get
// a longer request timeout (SDKTimeout), so this one ends the attempt
// first and they behave alike.
func HTTPClient(observe Observer, attempt time.Duration) *http.Client {
	t := httpclient.Transport(maxIdlePerHost)
	t.WriteBufferSize = writeBuffer
	var rt http.RoundTripper = replayedBody{next: t}
	if observe != nil {
		rt = observed{next: rt, observe: observe}
	}
	return httpclient.New(httpclient.Deadline{Next: rt, D: attempt})
}

// replayedBody sends a fresh copy of a request body the SDK can replay
// (GetBody) instead of the body it wrapped for its own bookkeeping:
// net/http sends a body it knows to be in memory together with the
// headers, in one write, but flushes the headers first and copies any
// other body after them through a buffer of its size.
type replayedBody struct{ next http.RoundTripper }

func (t replayedBody) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.GetBody == nil || r.Body == nil || r.Body == http.NoBody {
		return t.next.RoundTrip(r)
	}
	body, err := r.GetBody()
	if err != nil {
		return t.next.RoundTrip(r)
	}
	r.Body.Close() // a RoundTripper closes the body it was given
	fresh := *r    // and changes nothing else of the caller's request
	fresh.Body = body
	return t.next.RoundTrip(&fresh)
}

// observed reports each round trip. Both SDKs number their attempts in
// the X-Stainless-Retry-Count header ("0" for the first).
type observed struct {
	next    http.RoundTripper
	observe Observer
}

func (o observed) RoundTrip(r *http.Request) (*http.Response, error) {
	retry := r.Header.Get("X-Stainless-Retry-Count")
	res, err := o.next.RoundTrip(r)
	status := 0
	if err == nil {
		status = res.StatusCode
	}
	o.observe(status, retry != "" && retry != "0")
	return res, err
}

// SDKTimeout is the request timeout to give an SDK whose client is
// HTTPClient(observe, attempt): long enough that the client's own timeout
// always ends an attempt first (so it is retried), and set at all because
// the Anthropic SDK refuses large non-streaming requests without one.
func SDKTimeout(attempt time.Duration) time.Duration {
	return 2*attempt + time.Second
}
