// Package vendor holds what the OpenAI and Anthropic providers share: how
// non-user context is marked, and how vendor errors are read.
package vendor

import (
	"net/http"
	"strconv"
	"time"
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
// the model's host: about as many as turns run at once (the engine's
// default concurrency). It matters for HTTP/1.1 servers (Ollama, vLLM, a
// local proxy), where net/http's default of 2 would make most calls open a
// new connection; HTTP/2 hosts multiplex over one anyway.
const maxIdlePerHost = 64

// Observer hears of every HTTP attempt to a model API: its status (0 for
// a transport error or timeout) and whether it was one of the SDK's
// retries. It runs inline and must be fast.
type Observer func(status int, retry bool)

// HTTPClient is the SDKs' HTTP client: net/http's default transport
// (proxy from the environment, HTTP/2, dial and TLS timeouts) keeping up
// to maxIdlePerHost idle connections per host, reporting each attempt to
// observe when it is set. Request timeouts are the SDKs' own
// (option.WithRequestTimeout).
func HTTPClient(observe Observer) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = maxIdlePerHost
	t.MaxIdleConns = 2 * maxIdlePerHost
	if observe == nil {
		return &http.Client{Transport: t}
	}
	return &http.Client{Transport: observed{next: t, observe: observe}}
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
