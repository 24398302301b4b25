package whatsappcloud

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/botgw/botgw"
)

// apiError is a Graph API call's failure: the HTTP status and Meta's code.
type apiError struct {
	Status  int
	Code    int
	Message string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("graph api: %d: code %d: %s", e.Status, e.Code, e.Message)
}

// call sends one Graph API request with the Bearer token and decodes a 200
// answer into out (when not nil). A refusal is *apiError.
func (a *Adapter) call(ctx context.Context, method, u string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return errors.New("graph api: bad request URL")
	}
	req.Header.Set("Authorization", "Bearer "+a.cfg.AccessToken)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := a.api.Do(req)
	if err != nil {
		return fmt.Errorf("graph api: %w", unwrapURL(err))
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("graph api: read answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		var eb errorBody
		_ = json.Unmarshal(data, &eb)
		a.noteCode(eb.Error.Code)
		return &apiError{Status: res.StatusCode, Code: eb.Error.Code, Message: eb.Error.Message}
	}
	a.expired.Store(false)
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("graph api: decode answer: %w", err)
	}
	return nil
}

// noteCode counts an error code and marks the token expired on 190.
func (a *Adapter) noteCode(code int) {
	a.counts.add(errorEvent(code))
	if code == codeTokenExpired {
		if !a.expired.Swap(true) {
			a.log.Error("the Graph API refused the access token (code 190): the channel is unhealthy until a new token is configured")
		}
	}
}

// Meta's error codes the channel handles (docs/whatsapp-cloud.md).
const (
	codeTokenExpired   = 190
	codeRateLimit      = 130429 // the number's throughput
	codeSpamRate       = 131048
	codePairRate       = 131056 // too many messages to one player
	codeReEngagement   = 131047 // outside the 24-hour window
	codeUndeliverable  = 131026
	codeUnsupportedMsg = 131051
)

// platformError translates a failed call for the engine: rate limits and
// an expired token are retried later (the reply waits in the outbox); a
// message WhatsApp will never deliver, and any other 4xx, is not retried.
func (a *Adapter) platformError(err error) *botgw.PlatformError {
	pe := &botgw.PlatformError{Channel: Name, Err: err}
	var ae *apiError
	if !errors.As(err, &ae) {
		return pe // transport: retried
	}
	pe.Status = ae.Status
	switch ae.Code {
	case codeRateLimit, codeSpamRate, codePairRate:
		pe.RetryAfter = holdFor(ae.Code)
	case codeTokenExpired:
		pe.RetryAfter = time.Minute
	case codeUndeliverable, codeUnsupportedMsg:
		pe.Permanent = true
	default:
		pe.Permanent = ae.Status >= 400 && ae.Status < 500 && ae.Status != http.StatusTooManyRequests
	}
	return pe
}

// holdFor is how long a rate-limit code holds sends back.
func holdFor(code int) time.Duration {
	switch code {
	case codeSpamRate:
		return time.Minute
	case codePairRate:
		return 6 * time.Second // Meta's pair rate: one message every 6 s
	}
	return 5 * time.Second
}

// unwrapURL drops the URL from a transport error.
func unwrapURL(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}
