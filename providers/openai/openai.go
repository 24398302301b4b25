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
	"net/url"
	"time"

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
	DefaultTimeout    = 60 * time.Second
	DefaultMaxRetries = 2
)

var _ botgw.Provider = (*Provider)(nil)

// Config configures one model on one server.
type Config struct {
	// BaseURL is the API root; "" is api.openai.com. Any OpenAI-compatible
	// server works: Ollama http://localhost:11434/v1, vLLM, OpenRouter.
	BaseURL string `yaml:"base_url"`
	APIKey  string `yaml:"api_key"`
	Model   string `yaml:"model"`
	// Timeout bounds each attempt; 0 means DefaultTimeout.
	Timeout time.Duration `yaml:"timeout"`
	// MaxTokens caps the reply; 0 leaves it to the server.
	MaxTokens   int      `yaml:"max_tokens"`
	Temperature *float64 `yaml:"temperature"`
	// MaxRetries is how often the SDK retries a failed attempt (connection
	// errors, 408, 409, 429, 5xx) with backoff and jitter, honouring
	// Retry-After. 0 means DefaultMaxRetries; negative disables retries.
	MaxRetries int `yaml:"max_retries"`
	// Observe, if set, hears of every HTTP attempt (metrics): its status,
	// 0 for a transport error or timeout, and whether it was a retry.
	Observe func(status int, retry bool) `yaml:"-"`
}

// Provider calls one model. It is safe for concurrent use.
type Provider struct {
	id       string
	cfg      Config
	official bool // api.openai.com: max_completion_tokens instead of max_tokens
	client   sdk.Client
}

// New checks cfg and builds the client. It does no network I/O.
func New(cfg Config) (*Provider, error) {
	if cfg.Model == "" {
		return nil, errors.New("openai provider: model is required")
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("openai provider: base url %q: want an absolute http(s) URL", cfg.BaseURL)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	return &Provider{
		id:       "openai/" + cfg.Model,
		cfg:      cfg,
		official: u.Hostname() == "api.openai.com",
		client:   sdk.Client{Options: clientOptions(cfg, base)},
	}, nil
}

// clientOptions lists every setting explicitly. The service is built
// without openai.NewClient, whose defaults read OPENAI_* variables.
func clientOptions(cfg Config, base string) []option.RequestOption {
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(wire.HTTPClient(cfg.Observe, cfg.Timeout)),
		option.WithBaseURL(base),
		option.WithMaxRetries(retries),
		option.WithRequestTimeout(wire.SDKTimeout(cfg.Timeout)), // a backstop: the client's own ends each attempt first
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return opts
}

// ID returns "openai/<model>".
func (p *Provider) ID() string { return p.id }

// Complete sends one chat completion and returns the first choice. Vendor,
// transport and timeout errors are *botgw.ProviderError.
func (p *Provider) Complete(ctx context.Context, req botgw.Request) (botgw.Reply, error) {
	body, err := p.body(req)
	if err != nil {
		return botgw.Reply{}, fmt.Errorf("%s request: %w", p.id, err)
	}
	var res []byte
	if err := p.client.Post(ctx, "chat/completions", body, &res); err != nil {
		return botgw.Reply{}, p.providerError(ctx, err)
	}
	return p.parseReply(res)
}

// requestOpts: text with broken UTF-8 from a platform is sent with
// replacement characters, as encoding/json would, rather than failing.
var requestOpts = jsontext.AllowInvalidUTF8(true)

// body encodes the request.
func (p *Provider) body(req botgw.Request) ([]byte, error) {
	msgs, err := messages(req.System, req.Messages)
	if err != nil {
		return nil, err
	}
	tls, err := tools(req.Tools)
	if err != nil {
		return nil, err
	}
	r := request{Model: p.cfg.Model, Messages: msgs, Tools: tls, Temperature: p.cfg.Temperature}
	if n := int64(p.cfg.MaxTokens); n > 0 && p.official {
		r.MaxCompletionTokens = n
	} else if n > 0 {
		// Compatible servers document max_tokens only (Ollama, vLLM).
		r.MaxTokens = n
	}
	body, err := jsonv2.Marshal(r, requestOpts)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return body, nil
}
