// Package anthropic is a botgw.Provider on the Anthropic Messages API,
// built on the official SDK (github.com/anthropics/anthropic-sdk-go).
//
// The client is configured only from Config: the SDK's environment and
// profile-file defaults (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
// ~/.config/anthropic) are switched off with WithoutEnvironmentDefaults.
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/internal/wire"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultMaxTokens  = 1024
	DefaultTimeout    = 60 * time.Second
	DefaultMaxRetries = 2
)

var _ botgw.Provider = (*Provider)(nil)

// Config configures one model.
type Config struct {
	// BaseURL is the API root; "" is https://api.anthropic.com.
	BaseURL string `yaml:"base_url"`
	APIKey  string `yaml:"api_key"`
	Model   string `yaml:"model"`
	// Timeout bounds each attempt; 0 means DefaultTimeout. It is always
	// set, which also lifts the SDK's refusal of non-streaming calls with a
	// large MaxTokens.
	Timeout time.Duration `yaml:"timeout"`
	// MaxTokens caps the reply (the API requires it); 0 means
	// DefaultMaxTokens.
	MaxTokens   int      `yaml:"max_tokens"`
	Temperature *float64 `yaml:"temperature"`
	// MaxRetries is how often the SDK retries a failed attempt (connection
	// errors, timeouts, 408, 409, 429, 5xx incl. 529 overloaded) with
	// backoff, honouring Retry-After. 0 means DefaultMaxRetries; negative
	// disables retries.
	MaxRetries int `yaml:"max_retries"`
	// Observe, if set, hears of every HTTP attempt (metrics): its status,
	// 0 for a transport error or timeout, and whether it was a retry.
	Observe func(status int, retry bool) `yaml:"-"`
}

// Provider calls one model. It is safe for concurrent use.
type Provider struct {
	id       string
	cfg      Config
	messages sdk.MessageService
}

// New checks cfg and builds the client. It does no I/O.
func New(cfg Config) (*Provider, error) {
	if cfg.Model == "" {
		return nil, errors.New("anthropic provider: model is required")
	}
	if cfg.BaseURL != "" {
		if u, err := url.Parse(cfg.BaseURL); err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("anthropic provider: base url %q: want an absolute http(s) URL", cfg.BaseURL)
		}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	client := sdk.NewClient(clientOptions(cfg)...)
	return &Provider{id: "anthropic/" + cfg.Model, cfg: cfg, messages: client.Messages}, nil
}

func clientOptions(cfg Config) []option.RequestOption {
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(wire.HTTPClient(cfg.Observe, cfg.Timeout)),
		option.WithMaxRetries(retries),
		option.WithRequestTimeout(wire.SDKTimeout(cfg.Timeout)), // a backstop: the client's own ends each attempt first
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	return opts
}

// ID returns "anthropic/<model>".
func (p *Provider) ID() string { return p.id }

// Complete sends one Messages call. Vendor, transport and timeout errors are
// *botgw.ProviderError.
func (p *Provider) Complete(ctx context.Context, req botgw.Request) (botgw.Reply, error) {
	params, err := p.params(req)
	if err != nil {
		return botgw.Reply{}, fmt.Errorf("%s request: %w", p.id, err)
	}
	msg, err := p.messages.New(ctx, params)
	if err != nil {
		return botgw.Reply{}, p.providerError(ctx, err)
	}
	return p.reply(msg), nil
}

func (p *Provider) params(req botgw.Request) (sdk.MessageNewParams, error) {
	msgs, err := messages(req.Messages)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	tls, err := tools(req.Tools)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	params := sdk.MessageNewParams{
		Model:     sdk.Model(p.cfg.Model),
		MaxTokens: int64(p.cfg.MaxTokens),
		Messages:  msgs,
		Tools:     tls,
	}
	if len(tls) == 0 {
		// The API refuses tool_use blocks without tool definitions: declare
		// the tools the history used, and let the model call none of them.
		if used := usedTools(req.Messages); len(used) > 0 {
			params.Tools = used
			params.ToolChoice = sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}
		}
	}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	if t := p.cfg.Temperature; t != nil {
		params.Temperature = sdk.Float(*t)
	}
	return params, nil
}

func (p *Provider) reply(msg *sdk.Message) botgw.Reply {
	u := msg.Usage
	r := botgw.Reply{
		Provider: p.id,
		Usage: botgw.Usage{
			InputTokens:  int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
			OutputTokens: int(u.OutputTokens),
		},
	}
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			r.ToolCalls = append(r.ToolCalls, botgw.ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		}
	}
	r.Text = strings.Join(text, "\n\n")
	return r
}
