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
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/internal/wire"
)

// DefaultBaseURL is the Anthropic API, used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.anthropic.com/"

// DefaultMaxTokens caps a reply when Config.MaxTokens is 0.
const DefaultMaxTokens = 1024

// sdkOptions are anthropic-sdk-go's option constructors; New puts
// WithoutEnvironmentDefaults before them.
var sdkOptions = wire.SDKOptions[option.RequestOption]{
	HTTPClient: func(c *http.Client) option.RequestOption { return option.WithHTTPClient(c) },
	BaseURL:    option.WithBaseURL, MaxRetries: option.WithMaxRetries,
	Timeout: option.WithRequestTimeout, APIKey: option.WithAPIKey,
}

var _ botgw.Provider = (*Provider)(nil)

// Config configures one model ("" BaseURL is DefaultBaseURL). MaxTokens
// 0 is DefaultMaxTokens: the API requires a cap. The attempt timeout is
// always set, which also lifts the SDK's refusal of non-streaming calls
// with a large MaxTokens.
type Config = wire.Config

// Provider calls one model. It is safe for concurrent use.
type Provider struct {
	id       string
	cfg      Config
	messages sdk.MessageService
}

// New checks cfg and builds the client. It does no I/O.
func New(cfg Config) (*Provider, error) {
	cfg, _, err := cfg.Check("anthropic", DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	client := sdk.NewClient(append([]option.RequestOption{option.WithoutEnvironmentDefaults()}, sdkOptions.For(cfg)...)...)
	return &Provider{id: "anthropic/" + cfg.Model, cfg: cfg, messages: client.Messages}, nil
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
		return botgw.Reply{}, p.cfg.ProviderError(ctx, p.id, err, failure(err))
	}
	return p.reply(msg), nil
}

// failure reads the SDK's API error (the status, Retry-After, the
// vendor's code and message); nil for timeouts and transport failures.
func failure(err error) *wire.Failure {
	if e, ok := errors.AsType[*sdk.Error](err); ok {
		return wire.APIFailure(e.StatusCode, e.Response, e.RawJSON())
	}
	return nil
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
