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
