package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	sdk "github.com/openai/openai-go/v3"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/internal/wire"
)

// providerError translates an SDK error, after the SDK's own retries, into
// a *botgw.ProviderError: the HTTP status, the vendor's error code (or
// type) and Retry-After for API errors; Status 0 for timeouts and transport
// failures.
func (p *Provider) providerError(ctx context.Context, err error) error {
	pe := &botgw.ProviderError{Provider: p.id, Err: err}
	if apiErr, ok := errors.AsType[*sdk.Error](err); ok {
		pe.Status = apiErr.StatusCode
		pe.Code = cmp.Or(apiErr.Code, apiErr.Type)
		if apiErr.Response != nil {
			pe.RetryAfter = wire.RetryAfter(apiErr.Response.Header)
		}
		if apiErr.Message != "" {
			pe.Err = wire.Error{Msg: apiErr.Message, Err: apiErr}
		}
		return pe
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		pe.Err = fmt.Errorf("no answer within the %s attempt timeout: %w", p.cfg.Timeout, err)
	}
	return pe
}
