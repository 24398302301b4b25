package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/internal/wire"
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
			pe.RetryAfter = wire.RetryAfter(apiErr.Response.Header)
		}
		if msg := vendorMessage(apiErr.RawJSON()); msg != "" {
			pe.Err = wire.Error{Msg: msg, Err: apiErr}
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
