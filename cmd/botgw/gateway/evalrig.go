package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/compaction"
	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/convo/media"
	"github.com/botgw/botgw/state"
)

// EvalConfig is the eval section: what `botgw eval` uses besides the
// gateway's own wiring (docs/evaluating.md).
type EvalConfig struct {
	// Judge is the model that grades `judge` expectations; nil: the provider.
	Judge *JudgeConfig `yaml:"judge"`
}

// JudgeConfig names the judge model, as provider names the assistant's.
type JudgeConfig struct {
	Kind    string `yaml:"kind"` // openai | anthropic; empty: from the environment
	BaseURL string `yaml:"base_url"`
	APIKey  string `yaml:"api_key"`
	Model   string `yaml:"model"`
}

// JudgeOf is the judge a provider makes: its kind, server, key and model.
func JudgeOf(pc ProviderConfig) *JudgeConfig {
	return &JudgeConfig{Kind: pc.Kind, BaseURL: pc.BaseURL, APIKey: pc.APIKey, Model: pc.Model}
}

func (j JudgeConfig) provider() ProviderConfig {
	return ProviderConfig{Kind: j.Kind, BaseURL: j.BaseURL, APIKey: j.APIKey, Model: j.Model}
}

func (e EvalConfig) validate() []error {
	if e.Judge == nil {
		return nil
	}
	return e.Judge.provider().validate("eval.judge")
}

// engineConfig is the engine's config as the gateway's config sets it;
// ids are the provider ids whose state the engine may continue.
func engineConfig(cfg Config, ids []string) convo.Config {
	return convo.Config{
		SystemPrompt: cfg.SystemPrompt, StateTTL: cfg.State.TTL, TurnTimeout: turnTimeout(cfg.Provider),
		Operators: cfg.Admin.Operators, AcceptProviders: ids,
		MaxToolCalls: cfg.MaxToolCalls, Apology: cfg.Apology, Limits: cfg.Limits.engine(),
		LogContent: cfg.Log.Content, Turns: cfg.Turns, ChannelTurns: cfg.Channels.Turns,
		TakeoverTTL: cfg.Admin.TakeoverTTL, DeliveryAttempts: cfg.Admin.DeliveryAttempts,
		NoOfferChoices: !cfg.ToolsBuiltin.offerChoices(),
	}
}

// Rig is the gateway's engine wiring for `botgw eval`: the config's
// system prompt, tool declarations, compaction, media rules and provider
// (behind its max_concurrency and rates), on a throwaway embedded Redis,
// never the configured one. Each conversation gets an engine of its own
// (Engine), so its replies, tool calls and token counts are its own.
type Rig struct {
	cfg     Config
	store   *state.Store
	prov    botgw.Provider
	ids     []string
	comp    botgw.Compactor
	counter compaction.Counter
	media   *media.Reader
	specs   []botgw.ToolSpec
	log     *slog.Logger
}

// NewRig opens the embedded store and builds the provider and compaction
// from cfg; the caller closes it.
func NewRig(ctx context.Context, cfg Config, log *slog.Logger) (*Rig, error) {
	st, err := state.Open(ctx, state.Config{}, cfg.StoreOptions(), log)
	if err != nil {
		return nil, fmt.Errorf("open embedded store: %w", err)
	}
	r := &Rig{cfg: cfg, store: st, log: log}
	if err := r.wire(cfg); err != nil {
		st.Close()
		return nil, err
	}
	return r, nil
}

func (r *Rig) wire(cfg Config) error {
	var err error
	r.prov, r.ids, err = buildProvider(cfg.Provider, shaping{rdb: r.store.Client(), prefix: state.DefaultKeyPrefix, log: r.log})
	if err != nil {
		return err
	}
	r.counter = compaction.NewCounter(cfg.Provider.resolved().Model)
	if r.comp, err = compaction.New(cfg.Compaction, r.prov, r.counter); err != nil {
		return fmt.Errorf("compaction: %w", err)
	}
	if r.media, err = buildMedia(cfg, nil, nil, r.log); err != nil {
		return err
	}
	t, err := buildTools(cfg.Tools, r.log)
	if err != nil || t == nil {
		return err
	}
	r.specs = t.Specs()
	return nil
}

// StepTimeout is the longest one input waits for its turn: the provider's
// whole attempt budget, and some.
func (r *Rig) StepTimeout() time.Duration { return turnTimeout(r.cfg.Provider) + 30*time.Second }

// Close closes the embedded store.
func (r *Rig) Close() error { return r.store.Close() }

// ToolSpecs are the tools the config declares, as the model sees them.
func (r *Rig) ToolSpecs() []botgw.ToolSpec { return r.specs }

// Provider describes the provider and model that answer.
func (r *Rig) Provider() string { return r.prov.ID() }

// Engine builds an engine like serve's, sending through ch, running tools
// through tools (nil: none) and reporting to hooks. Turns start at once:
// eval gives one input at a time and waits for its answer, so a debounce
// would only add its delay.
func (r *Rig) Engine(ch botgw.Channel, tools convo.Tools, hooks convo.Hooks) (*convo.Engine, error) {
	ec := engineConfig(r.cfg, r.ids)
	ec.Turns.Debounce, ec.ChannelTurns = 0, nil
	return convo.New(ec, convo.Deps{Store: r.store, Provider: r.prov, Compactor: r.comp,
		Channels: map[string]botgw.Channel{ch.Name(): ch},
		Count:    func(h []botgw.Message) int { return compaction.CountMessages(r.counter, h) },
		Media:    r.media, Tools: tools, Hooks: hooks, Log: r.log})
}

// JSONModel answers with JSON matching a schema (the judge of `botgw eval`).
type JSONModel interface {
	CompleteJSON(ctx context.Context, req botgw.Request, name string, schema map[string]any) (botgw.Reply, error)
}

// Judge builds the judge model: eval.judge, else the provider. It is
// called without limits of the gateway's: the judge is not the assistant.
func (r *Rig) Judge() (JSONModel, error) {
	pc := r.cfg.Provider
	if r.cfg.Eval.Judge != nil {
		pc = r.cfg.Eval.Judge.provider()
	}
	p, err := oneProvider(pc.resolved(), nil)
	if err != nil {
		return nil, fmt.Errorf("eval.judge: %w", err)
	}
	j, ok := p.(JSONModel)
	if !ok {
		return nil, fmt.Errorf("eval.judge: the %s provider cannot judge; set eval.judge (kind openai or anthropic)", pc.resolved().Kind)
	}
	return j, nil
}
