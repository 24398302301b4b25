package gateway

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/botgw/botgw/channels/stream/kafka"
	"github.com/botgw/botgw/channels/web"
	"github.com/botgw/botgw/compaction"
	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/convo/limits"
	"github.com/botgw/botgw/convo/tools"
	"github.com/botgw/botgw/state"
)

// Config is the whole gateway configuration (CONTRACT.md, "Config").
type Config struct {
	Listen    string `yaml:"listen"`
	PublicURL string `yaml:"public_url"`
	// TrustedProxies are the reverse proxies (CIDRs) whose X-Forwarded-For
	// names the client; see docs/security.md.
	TrustedProxies []string          `yaml:"trusted_proxies"`
	Redis          state.Config      `yaml:"redis"`
	State          StateConfig       `yaml:"state"`
	SystemPrompt   string            `yaml:"system_prompt"`
	Provider       ProviderConfig    `yaml:"provider"`
	Apology        string            `yaml:"apology"`        // the reply when the provider (and its fallback) failed
	Tools          []tools.Config    `yaml:"tools"`          // the game's HTTP endpoints the model may call
	MaxToolCalls   int               `yaml:"max_tool_calls"` // per turn; default 5
	ToolsBuiltin   ToolsBuiltin      `yaml:"tools_builtin"`  // the gateway's own tools
	Limits         LimitsConfig      `yaml:"limits"`
	Compaction     compaction.Config `yaml:"compaction"`
	Turns          convo.TurnsConfig `yaml:"turns"` // debounce and interrupt; channels.<name>.turns overrides
	Channels       ChannelsConfig    `yaml:"channels"`
	Media          MediaConfig       `yaml:"media"` // photos and voice notes (docs/media.md)
	Events         EventsConfig      `yaml:"events"`
	Stream         StreamConfig      `yaml:"stream"`
	Admin          AdminConfig       `yaml:"admin"`
	Log            LogConfig         `yaml:"log"`
	Eval           EvalConfig        `yaml:"eval"` // botgw eval (docs/evaluating.md)
}

// ToolsBuiltin turns the gateway's own tools on or off.
type ToolsBuiltin struct {
	OfferChoices *bool `yaml:"offer_choices"` // default true: the model may offer choices to tap
}

func (t ToolsBuiltin) offerChoices() bool { return t.OfferChoices == nil || *t.OfferChoices }

type StateConfig struct {
	TTL time.Duration `yaml:"ttl"`
}

// ProviderConfig selects and configures the LLM backend.
type ProviderConfig struct {
	Kind        string          `yaml:"kind"` // openai | anthropic | fake; empty: from the environment
	BaseURL     string          `yaml:"base_url"`
	APIKey      string          `yaml:"api_key"`
	Model       string          `yaml:"model"`
	Timeout     time.Duration   `yaml:"timeout"`
	MaxTokens   int             `yaml:"max_tokens"`
	Temperature *float64        `yaml:"temperature"`
	MaxRetries  *int            `yaml:"max_retries"`
	Fallback    *ProviderConfig `yaml:"fallback"`
	// MaxConcurrency bounds this replica's model calls in flight (default
	// 1024); RequestsPerMinute and TokensPerMinute (0 = off) are shared by
	// all replicas through Redis. See providers/limit.
	MaxConcurrency    int `yaml:"max_concurrency"`
	RequestsPerMinute int `yaml:"requests_per_minute"`
	TokensPerMinute   int `yaml:"tokens_per_minute"`
}

// ChannelsConfig: a channel is on when its section is present.
type ChannelsConfig struct {
	Telegram *telegramConfig `yaml:"telegram"`
	Slack    *slackConfig    `yaml:"slack"`
	WhatsApp *whatsappConfig `yaml:"whatsapp"`
	Web      *web.Config     `yaml:"web"`
	// WhatsAppCloud is the WhatsApp Business Cloud API channel.
	WhatsAppCloud *whatsappCloudConfig `yaml:"whatsapp_cloud"`
	// Turns are the channels.<name>.turns overrides of the top-level turns
	// section, decoded apart from the adapters' sections (turns.go).
	Turns map[string]convo.TurnsConfig `yaml:"-"`
}

// LimitsConfig caps each chat's use; zero is off.
type LimitsConfig struct {
	DailyTokensPerChat    int    `yaml:"daily_tokens_per_chat"`     // input+output tokens per UTC day
	TurnsPerMinutePerChat int    `yaml:"turns_per_minute_per_chat"` // a flood waits and is answered as one turn
	DailyTokensReply      string `yaml:"daily_tokens_reply"`        // the "come back tomorrow" reply
	MaxInputChars         int    `yaml:"max_input_chars"`           // longer input is cut to this, on every channel
	CutNotice             string `yaml:"cut_notice"`                // tells the user their input was cut; {max} is the limit
}

type EventsConfig struct {
	Secret string              `yaml:"secret"`
	Kafka  *kafka.SourceConfig `yaml:"kafka"` // app events in from Kafka, besides POST /v1/events
}

type AdminConfig struct {
	Token     string              `yaml:"token"`
	Operators map[string][]string `yaml:"operators"`
	// TakeoverTTL is how long a pause without a duration lasts.
	TakeoverTTL time.Duration `yaml:"takeover_ttl"`
	// DeadLetterTTL is how long dead letters are kept.
	DeadLetterTTL time.Duration `yaml:"dead_letter_ttl"`
	// DeliveryAttempts is how many delivery rounds a reply gets before it
	// goes to the dead letters.
	DeliveryAttempts int `yaml:"delivery_attempts"`
}

// StoreOptions are the store timings plus the dead-letter retention.
func (c Config) StoreOptions() state.Options {
	o := c.Redis.Options()
	o.DeadLetterTTL = c.Admin.DeadLetterTTL
	o.Stream = state.StreamOptions{Sinks: c.Stream.sinks()}
	return o
}

type LogConfig struct {
	Level       string `yaml:"level"`        // debug | info | warn | error
	Format      string `yaml:"format"`       // text | json; default: text on a terminal, else json
	RedactChats bool   `yaml:"redact_chats"` // log a keyed hash of chat keys and user ids
	RedactKey   string `yaml:"redact_key"`   // the hash key, the same on every replica; empty: random per process
	Content     bool   `yaml:"content"`      // log message text (off by default)
}

// DefaultConfig is what runs with no config file: loopback, embedded Redis,
// the web channel, and a provider chosen from the environment.
func DefaultConfig() Config {
	return Config{
		Listen:       "127.0.0.1:8080",
		Redis:        state.Config{KeyPrefix: "botgw"},
		State:        StateConfig{TTL: 24 * time.Hour},
		SystemPrompt: "You are the friendly assistant of a location game. Answer briefly and kindly.",
		Provider:     ProviderConfig{Timeout: 60 * time.Second},
		Limits:       LimitsConfig{MaxInputChars: limits.DefaultMaxInputChars},
		Compaction:   compaction.Config{}, // compaction's own defaults: token_budget, 4000 tokens
		Channels:     ChannelsConfig{Web: &web.Config{}},
		Admin:        AdminConfig{TakeoverTTL: 30 * time.Minute, DeadLetterTTL: 7 * 24 * time.Hour, DeliveryAttempts: 5},
	}
}

// SyntaxError is a file that is not YAML at all: nothing else can be checked.
type SyntaxError struct{ err error }

func (e *SyntaxError) Error() string { return "config: " + e.err.Error() }
func (e *SyntaxError) Unwrap() error { return e.err }

// LoadConfig reads a YAML file over the defaults, expanding ${VAR} and
// ${VAR:-default} from the environment. Unknown keys are errors. Every error
// names its key path. On key errors the returned config is the part that
// decoded, so Validate can still report the rest.
func LoadConfig(path string) (Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	cfg := DefaultConfig()
	cfg.Channels.Web = nil // a file lists the channels it wants
	if err := decodeYAML(expandEnv(string(raw)), &cfg); err != nil {
		return cfg, err
	}
	return cfg, nil
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandEnv replaces ${VAR} and ${VAR:-default}; a bare $ is left alone so
// secrets containing $ survive.
func expandEnv(s string) string {
	return envRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := envRef.FindStringSubmatch(ref)
		if v, ok := os.LookupEnv(m[1]); ok && (v != "" || m[2] == "") {
			return v
		}
		return m[3]
	})
}

// decodeYAML decodes strictly and rewrites yaml.v3's line-numbered errors
// into key paths ("redis.bogus: unknown key"). The per-channel turn
// sections (channels.<name>.turns) are taken out first and decoded apart,
// so the adapters' own config types stay as they are.
func decodeYAML(src string, cfg *Config) error {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		return &SyntaxError{err}
	}
	turns := takeChannelTurns(&root)
	if len(turns) > 0 {
		b, err := yaml.Marshal(&root)
		if err != nil {
			return &SyntaxError{err}
		}
		src = string(b)
	}
	err := strictDecode(src, cfg, "")
	if _, ok := errors.AsType[*SyntaxError](err); ok {
		return err
	}
	return errors.Join(err, decodeChannelTurns(turns, cfg))
}

// strictDecode decodes src into out with unknown keys as errors, each named
// by its key path under prefix.
func strictDecode(src string, out any, prefix string) error {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		return &SyntaxError{err}
	}
	dec := yaml.NewDecoder(bytes.NewReader([]byte(src)))
	dec.KnownFields(true)
	err := dec.Decode(out)
	if err == nil || errors.Is(err, io.EOF) {
		return nil
	}
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return &SyntaxError{err}
	}
	lines := keyPaths(&root)
	for l, p := range lines {
		lines[l] = join(prefix, p)
	}
	errs := make([]error, 0, len(te.Errors))
	for _, msg := range te.Errors {
		errs = append(errs, errors.New(describe(msg, lines)))
	}
	return errors.Join(errs...)
}

// keyPaths maps each line of the document to the key path defined there.
func keyPaths(root *yaml.Node) map[int]string {
	lines := map[int]string{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				p := join(path, n.Content[i].Value)
				lines[n.Content[i].Line] = p
				walk(n.Content[i+1], p)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				p := fmt.Sprintf("%s[%d]", path, i)
				if _, ok := lines[c.Line]; !ok {
					lines[c.Line] = p
				}
				walk(c, p)
			}
		}
	}
	walk(root, "")
	return lines
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

var lineMsg = regexp.MustCompile(`^line (\d+): (.*)$`)
var unknownField = regexp.MustCompile(`^field (\S+) not found in type`)
var badValue = regexp.MustCompile("^cannot unmarshal !!\\w+ `(.*)` into (\\S+)$")

// describe turns "line 7: field foo not found in type main.X" into
// "redis.foo: unknown key".
func describe(msg string, lines map[int]string) string {
	m := lineMsg.FindStringSubmatch(msg)
	if m == nil {
		return "config: " + msg
	}
	var line int
	fmt.Sscan(m[1], &line)
	path, detail := lines[line], m[2]
	if path == "" {
		path = "line " + m[1]
	}
	if u := unknownField.FindStringSubmatch(detail); u != nil {
		return path + ": unknown key"
	}
	if b := badValue.FindStringSubmatch(detail); b != nil {
		what := b[2]
		if strings.HasSuffix(what, "Duration") {
			what = "a duration like 30s, 5m or 24h"
		}
		return fmt.Sprintf("%s: %q is not %s", path, b[1], what)
	}
	return path + ": " + detail
}
