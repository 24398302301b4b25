package wire

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/botgw/botgw"
)

// Defaults applied by Config.Check to zero fields.
const (
	DefaultTimeout    = 60 * time.Second
	DefaultMaxRetries = 2
)

// Config configures one model on one server; each provider's Config is
// this type. The config file's provider section is decoded by the
// gateway (cmd/botgw/gateway.ProviderConfig), whose max_retries: 0 means
// no retries and becomes a negative MaxRetries here.
type Config struct {
	// BaseURL is the API root; "" is the vendor's own host. For OpenAI,
	// any compatible server works: Ollama http://localhost:11434/v1, vLLM,
	// OpenRouter.
	BaseURL string
	APIKey  string
	Model   string
	// Timeout bounds each attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxTokens caps the reply; 0 is the provider's default (OpenAI: none,
	// left to the server; Anthropic, whose API requires one:
	// anthropic.DefaultMaxTokens).
	MaxTokens   int
	Temperature *float64
	// MaxRetries is how often the SDK retries a failed attempt (connection
	// errors, timeouts, 408, 409, 429, 5xx incl. Anthropic's 529
	// overloaded) with backoff and jitter, honouring Retry-After. 0 means
	// DefaultMaxRetries; negative disables retries.
	MaxRetries int
	// Observe, if set, hears of every HTTP attempt (metrics): its status,
	// 0 for a transport error or timeout, and whether it was a retry.
	Observe func(status int, retry bool)
}

// Check returns c with its defaults applied: BaseURL host when empty,
// Timeout DefaultTimeout when zero. It refuses a configuration without a
// model or whose base URL is not absolute; vendor names the provider in
// the error.
func (c Config) Check(vendor, host string) (Config, *url.URL, error) {
	if c.Model == "" {
		return c, nil, fmt.Errorf("%s provider: model is required", vendor)
	}
	u, err := url.Parse(cmp.Or(c.BaseURL, host))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return c, nil, fmt.Errorf("%s provider: base url %q: want an absolute http(s) URL", vendor, c.BaseURL)
	}
	c.BaseURL = u.String()
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	return c, u, nil
}

// Retries is how often the SDK retries: MaxRetries, DefaultMaxRetries for
// 0, none when negative.
func (c Config) Retries() int {
	switch {
	case c.MaxRetries == 0:
		return DefaultMaxRetries
	case c.MaxRetries < 0:
		return 0
	}
	return c.MaxRetries
}

// SDKOptions are an SDK's constructors of the settings every client
// gets, each in the SDK's own option type O.
type SDKOptions[O any] struct {
	HTTPClient func(*http.Client) O
	BaseURL    func(string) O
	MaxRetries func(int) O
	Timeout    func(time.Duration) O
	APIKey     func(string) O
}

// For is c's settings: HTTPClient with c's observer and attempt timeout,
// the base URL, Retries, SDKTimeout as the SDK's request timeout (a
// backstop: the client's own ends each attempt first), and the key when
// there is one.
func (s SDKOptions[O]) For(c Config) []O {
	opts := []O{
		s.HTTPClient(HTTPClient(c.Observe, c.Timeout)),
		s.BaseURL(c.BaseURL),
		s.MaxRetries(c.Retries()),
		s.Timeout(SDKTimeout(c.Timeout)),
	}
	if c.APIKey != "" {
		opts = append(opts, s.APIKey(c.APIKey))
	}
	return opts
}

// Failure is what a provider reads from its SDK's API error.
type Failure struct {
	Status int
	Code   string      // the vendor's error code, or its type
	Header http.Header // the answer's, for Retry-After; nil when unknown
	Msg    string      // the vendor's own message; "" when unknown
}

// APIFailure reads an API error: its status, its answer's headers and its
// JSON body, the error object or a body holding it under "error" (the
// message, and the code or else the type).
func APIFailure(status int, res *http.Response, body string) *Failure {
	f := &Failure{Status: status}
	if res != nil {
		f.Header = res.Header
	}
	var e struct {
		errorObject
		Error *errorObject `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) != nil {
		return f
	}
	obj := e.errorObject
	if e.Error != nil {
		obj = *e.Error
	}
	f.Msg = obj.Message
	f.Code = cmp.Or(codeText(obj.Code), obj.Type)
	return f
}

// errorObject is a vendor's error: {"message", "type", "code"}.
type errorObject struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"` // a string; a number on some compatible servers
}

func codeText(code any) string {
	switch c := code.(type) {
	case string:
		return c
	case float64:
		return strconv.FormatFloat(c, 'f', -1, 64)
	}
	return ""
}

// ProviderError is err, an SDK error after the SDK's own retries, as a
// *botgw.ProviderError of provider id: with f's status, code, message
// and Retry-After for an API error (f not nil); status 0 for timeouts and
// transport failures, saying so when the attempt timeout (not the
// caller) ended the call.
func (c Config) ProviderError(ctx context.Context, id string, err error, f *Failure) error {
	pe := &botgw.ProviderError{Provider: id, Err: err}
	if f != nil {
		pe.Status, pe.Code = f.Status, f.Code
		pe.RetryAfter = RetryAfter(f.Header)
		if f.Msg != "" {
			pe.Err = Error{Msg: f.Msg, Err: err}
		}
		return pe
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		pe.Err = fmt.Errorf("no answer within the %s attempt timeout: %w", c.Timeout, err)
	}
	return pe
}
