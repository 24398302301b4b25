package gateway

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/convo/tools"
	"github.com/botgw/botgw/webhooks/guard"
)

// Validate checks the whole config; each error starts with its key path.
func (c Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		bad("listen", "want host:port, got %q", c.Listen)
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			bad("public_url", "want an absolute URL like https://bot.example.com, got %q", c.PublicURL)
		}
	}
	if c.State.TTL <= 0 {
		bad("state.ttl", "must be positive, like 24h")
	}
	if _, err := guard.ParseProxies(c.TrustedProxies); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.Redis.Validate(), c.Compaction.Validate())
	errs = append(errs, c.Provider.validate("provider")...)
	errs = append(errs, c.Channels.validate()...)
	errs = append(errs, c.validateSlackApp())
	errs = append(errs, tools.Validate(c.Tools), c.validateBuiltin(), c.Limits.validate(), c.validateTurns(), c.Media.validate(c.Provider))
	if c.MaxToolCalls < 0 {
		bad("max_tool_calls", "must not be negative")
	}
	for ch := range c.Admin.Operators {
		switch {
		case ch == "web": // the page's "user" is whatever chat id a browser sends
			bad("admin.operators.web", "the web chat has no verified users, so anyone could claim an operator id; operate from Telegram, Slack or WhatsApp, the admin API or the /admin page")
		case !slices.Contains(c.Channels.Names(), ch):
			bad("admin.operators."+ch, "no such channel is configured")
		case ch == "whatsapp":
			errs = append(errs, validatePhoneOperators(c.Admin.Operators[ch]))
		}
	}
	errs = append(errs, c.Admin.validate()...)
	errs = append(errs, c.Stream.validate()...)
	errs = append(errs, validateEventsKafka(c.Events.Kafka)...)
	errs = append(errs, c.Eval.validate()...)
	if !slices.Contains([]string{"", "debug", "info", "warn", "error"}, c.Log.Level) {
		bad("log.level", "want debug, info, warn or error, got %q", c.Log.Level)
	}
	if !slices.Contains([]string{"", "text", "json"}, c.Log.Format) {
		bad("log.format", "want text or json, got %q", c.Log.Format)
	}
	if k := c.Log.RedactKey; k != "" && len(k) < 16 {
		bad("log.redact_key", "at least 16 characters (a random secret, the same on every replica), got %d", len(k))
	}
	return errors.Join(errs...)
}

// resolved fills in the provider from the environment when kind is empty:
// OpenAI if OPENAI_API_KEY is set, else Anthropic if ANTHROPIC_API_KEY is,
// else the fake demo provider.
func (p ProviderConfig) resolved() ProviderConfig {
	if p.Kind == "" {
		switch {
		case os.Getenv("OPENAI_API_KEY") != "":
			p.Kind, p.APIKey = "openai", os.Getenv("OPENAI_API_KEY")
		case os.Getenv("ANTHROPIC_API_KEY") != "":
			p.Kind, p.APIKey = "anthropic", os.Getenv("ANTHROPIC_API_KEY")
		default:
			p.Kind = "fake"
		}
	}
	if p.Model == "" {
		switch p.Kind {
		case "openai":
			p.Model = "gpt-4o-mini"
		case "anthropic":
			p.Model = "claude-haiku-4-5"
		}
	}
	return p
}

func (p ProviderConfig) validate(key string) []error {
	var errs []error
	bad := func(k, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s.%s: %s", key, k, fmt.Sprintf(format, args...)))
	}
	r := p.resolved()
	switch r.Kind {
	case "fake":
	case "openai":
		if r.APIKey == "" && r.BaseURL == "" {
			bad("api_key", "required for kind openai (set OPENAI_API_KEY), unless base_url names a server that needs none")
		}
	case "anthropic":
		if r.APIKey == "" {
			bad("api_key", "required for kind anthropic (set ANTHROPIC_API_KEY)")
		}
	default:
		bad("kind", "want openai, anthropic or fake, got %q", p.Kind)
	}
	if p.BaseURL != "" {
		if u, err := url.Parse(p.BaseURL); err != nil || u.Scheme == "" || u.Host == "" {
			bad("base_url", "want an absolute URL like http://localhost:11434/v1, got %q", p.BaseURL)
		}
	}
	if p.Timeout < 0 {
		bad("timeout", "must not be negative")
	}
	if p.MaxTokens < 0 {
		bad("max_tokens", "must not be negative")
	}
	if p.Temperature != nil && (*p.Temperature < 0 || *p.Temperature > 2) {
		bad("temperature", "want 0 to 2")
	}
	if p.MaxRetries != nil && *p.MaxRetries < 0 {
		bad("max_retries", "must not be negative")
	}
	if p.MaxConcurrency < 0 {
		bad("max_concurrency", "must not be negative (0: the default, 1024)")
	}
	if p.RequestsPerMinute < 0 {
		bad("requests_per_minute", "must not be negative (0 is off)")
	}
	if p.TokensPerMinute < 0 {
		bad("tokens_per_minute", "must not be negative (0 is off)")
	}
	if p.Fallback != nil {
		if p.Fallback.Fallback != nil {
			bad("fallback.fallback", "only one fallback is supported")
		}
		errs = append(errs, p.Fallback.validate(key+".fallback")...)
	}
	return errs
}

// Names lists the channels the config turns on.
func (c ChannelsConfig) Names() []string {
	var n []string
	if c.Telegram != nil {
		n = append(n, "telegram")
	}
	if c.Slack != nil {
		n = append(n, "slack")
	}
	if c.WhatsApp != nil {
		n = append(n, "whatsapp")
	}
	if c.Web != nil {
		n = append(n, "web")
	}
	if c.WhatsAppCloud != nil {
		n = append(n, "whatsapp_cloud")
	}
	return n
}

func (c ChannelsConfig) validate() []error {
	var errs []error
	if len(c.Names()) == 0 {
		errs = append(errs, errors.New("channels: none configured (add web: {} for the built-in chat page)"))
	}
	if c.Telegram != nil {
		errs = append(errs, c.Telegram.Validate())
	}
	if c.Slack != nil {
		errs = append(errs, c.Slack.Validate())
	}
	if c.WhatsApp != nil {
		errs = append(errs, validateWhatsApp(c.WhatsApp))
	}
	if c.Web != nil {
		errs = append(errs, c.Web.Validate())
	}
	if c.WhatsAppCloud != nil {
		errs = append(errs, c.WhatsAppCloud.Validate())
	}
	return errs
}

// maxInputChars bounds limits.max_input_chars: the longest input must fit
// the 1 MiB body limit of every route even as JSON-escaped text.
const maxInputChars = 50000

// maxTurnsPerMinute is what the engine can count (the turn records kept).
const maxTurnsPerMinute = 50

func (l LimitsConfig) validate() error {
	var errs []error
	if l.DailyTokensPerChat < 0 {
		errs = append(errs, errors.New("limits.daily_tokens_per_chat: must not be negative (0 is off)"))
	}
	if l.TurnsPerMinutePerChat < 0 || l.TurnsPerMinutePerChat > maxTurnsPerMinute {
		errs = append(errs, fmt.Errorf("limits.turns_per_minute_per_chat: want 0 (off) to %d", maxTurnsPerMinute))
	}
	if l.MaxInputChars < 1 || l.MaxInputChars > maxInputChars {
		errs = append(errs, fmt.Errorf("limits.max_input_chars: want 1 to %d", maxInputChars))
	}
	return errors.Join(errs...)
}

// validate checks the operator console's knobs.
func (a AdminConfig) validate() []error {
	var errs []error
	if a.TakeoverTTL <= 0 {
		errs = append(errs, errors.New("admin.takeover_ttl: must be positive, like 30m"))
	}
	if a.DeadLetterTTL <= 0 {
		errs = append(errs, errors.New("admin.dead_letter_ttl: must be positive, like 168h"))
	}
	if a.DeliveryAttempts < 1 {
		errs = append(errs, errors.New("admin.delivery_attempts: must be at least 1"))
	}
	return errs
}

// validatePhoneOperators checks admin.operators.whatsapp: phone numbers in
// international form, digits only, as WhatsApp user ids are.
func validatePhoneOperators(numbers []string) error {
	var errs []error
	for i, n := range numbers {
		if n == "" || strings.Trim(n, "0123456789") != "" {
			errs = append(errs, fmt.Errorf("admin.operators.whatsapp[%d]: %q is not a phone number in digits: write it as 447700900123, no + or spaces", i, n))
		}
	}
	return errors.Join(errs...)
}

// validateBuiltin refuses a game tool named like a built-in one that is on.
func (c Config) validateBuiltin() error {
	for i, t := range c.Tools {
		if t.Name == convo.OfferChoicesTool && c.ToolsBuiltin.offerChoices() {
			return fmt.Errorf("tools[%d].name: %s is a built-in tool (turn it off with tools_builtin.offer_choices: false)", i, t.Name)
		}
	}
	return nil
}
