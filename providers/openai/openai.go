// Package openai is a botgw.Provider on the OpenAI Chat Completions API,
// built on the official SDK (github.com/openai/openai-go/v3). It also
// speaks to any OpenAI-compatible server (Ollama, vLLM, OpenRouter,
// LM Studio) through Config.BaseURL.
//
// The client is configured only from Config: OPENAI_* environment variables
// (OPENAI_BASE_URL, OPENAI_ORG_ID, OPENAI_ADMIN_KEY, OPENAI_CUSTOM_HEADERS,
// ...) are never read, so a stray variable cannot send a chat's history to
// another server or account.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/internal/wire"
)

// DefaultBaseURL is the OpenAI API, used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1/"

// Defaults applied by New to zero Config fields.
const (
	DefaultTimeout    = wire.DefaultTimeout
	DefaultMaxRetries = wire.DefaultMaxRetries
)

var _ botgw.Provider = (*Provider)(nil)

// Config configures one model on one server ("" BaseURL is
// DefaultBaseURL); MaxTokens 0 leaves the reply's cap to the server.
type Config = wire.Config

// Provider calls one model. It is safe for concurrent use.
type Provider struct {
	id       string
	cfg      Config
	official bool // api.openai.com: max_completion_tokens instead of max_tokens
	client   sdk.Client
}

// New checks cfg and builds the client. It does no network I/O.
func New(cfg Config) (*Provider, error) {
	cfg, u, err := cfg.Check("openai", DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	return &Provider{
		id:       "openai/" + cfg.Model,
		cfg:      cfg,
		official: u.Hostname() == "api.openai.com",
		client:   sdk.Client{Options: sdkOptions.For(cfg)},
	}, nil
}

// sdkOptions are openai-go's option constructors. The service is built
// without openai.NewClient, whose defaults read OPENAI_* variables.
var sdkOptions = wire.SDKOptions[option.RequestOption]{
	HTTPClient: func(c *http.Client) option.RequestOption { return option.WithHTTPClient(c) },
	BaseURL:    option.WithBaseURL, MaxRetries: option.WithMaxRetries,
	Timeout: option.WithRequestTimeout, APIKey: option.WithAPIKey,
}

// ID returns "openai/<model>".
func (p *Provider) ID() string { return p.id }

// Complete sends one chat completion and returns the first choice. Vendor,
// transport and timeout errors are *botgw.ProviderError.
func (p *Provider) Complete(ctx context.Context, req botgw.Request) (botgw.Reply, error) {
	r, err := p.request(req)
	if err != nil {
		return botgw.Reply{}, fmt.Errorf("%s request: %w", p.id, err)
	}
	return p.send(ctx, r)
}

// send posts r and reads the reply.
func (p *Provider) send(ctx context.Context, r request) (botgw.Reply, error) {
	body, err := encode(r)
	if err != nil {
		return botgw.Reply{}, fmt.Errorf("%s request: %w", p.id, err)
	}
	var res []byte
	if err := p.client.Post(ctx, "chat/completions", body, &res); err != nil {
		return botgw.Reply{}, p.cfg.ProviderError(ctx, p.id, err, failure(err))
	}
	return p.parseReply(res)
}

// failure reads the SDK's API error (the status, Retry-After, the
// vendor's code and message); nil for timeouts and transport failures.
func failure(err error) *wire.Failure {
	if e, ok := errors.AsType[*sdk.Error](err); ok {
		return wire.APIFailure(e.StatusCode, e.Response, e.RawJSON())
	}
	return nil
}

// requestOpts: text with broken UTF-8 from a platform is sent with
// replacement characters, as encoding/json would, rather than failing.
var requestOpts = jsontext.AllowInvalidUTF8(true)

// body encodes the request.
func (p *Provider) body(req botgw.Request) ([]byte, error) {
	r, err := p.request(req)
	if err != nil {
		return nil, err
	}
	return encode(r)
}

// request is the Chat Completions request of req.
func (p *Provider) request(req botgw.Request) (request, error) {
	msgs, err := messages(req.System, req.Messages)
	if err != nil {
		return request{}, err
	}
	tls, err := tools(req.Tools)
	if err != nil {
		return request{}, err
	}
	r := request{Model: p.cfg.Model, Messages: msgs, Tools: tls, Temperature: p.cfg.Temperature}
	if n := int64(p.cfg.MaxTokens); n > 0 && p.official {
		r.MaxCompletionTokens = n
	} else if n > 0 {
		// Compatible servers document max_tokens only (Ollama, vLLM).
		r.MaxTokens = n
	}
	return r, nil
}

func encode(r request) ([]byte, error) {
	body, err := jsonv2.Marshal(r, requestOpts)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return body, nil
}
