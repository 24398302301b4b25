package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/botgw/botgw"
)

// providerError translates an SDK error, after the SDK's own retries, into
// a *botgw.ProviderError: the HTTP status (529 when overloaded), the error
// type and Retry-After for API errors; Status 0 for timeouts and transport
// failures.
func (p *Provider) providerError(ctx context.Context, err error) error {
	pe := &botgw.ProviderError{Provider: p.id, Err: err}
	if apiErr, ok := errors.AsType[*sdk.Error](err); ok {
		pe.Status = apiErr.StatusCode
		pe.Code = string(apiErr.Type())
		if apiErr.Response != nil {
			pe.RetryAfter = retryAfter(apiErr.Response.Header)
		}
		if msg := vendorMessage(apiErr.RawJSON()); msg != "" {
			pe.Err = vendorError{msg: msg, err: apiErr}
		}
		return pe
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		pe.Err = fmt.Errorf("no answer within the %s attempt timeout: %w", p.cfg.Timeout, err)
	}
	return pe
}

// vendorMessage reads error.message from the API's error body.
func vendorMessage(body string) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) != nil {
		return ""
	}
	return e.Error.Message
}

// vendorError shows the vendor's message (the SDK's own repeats the URL
// and the raw body) and keeps the SDK error in the chain for errors.As.
type vendorError struct {
	msg string
	err error
}

func (e vendorError) Error() string { return e.msg }
func (e vendorError) Unwrap() error { return e.err }

// retryAfter reads Retry-After-Ms, then Retry-After (seconds or an HTTP
// date); 0 when neither is usable.
func retryAfter(h http.Header) time.Duration {
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
