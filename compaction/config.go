package compaction

import (
	"errors"
	"fmt"
	"slices"

	"github.com/botgw/botgw"
)

// Strategy names, as written in the config.
const (
	StrategyNone        = "none"
	StrategyLastN       = "last_n"
	StrategyTokenBudget = "token_budget"
	StrategySummarize   = "summarize"
)

// Config chooses and tunes the strategy: either one strategy with its knobs
// (the flat form) or Chain, steps run in order. Zero fields take their
// defaults.
type Config struct {
	Strategy     string `yaml:"strategy"`      // none | last_n | token_budget | summarize; default token_budget
	MaxExchanges int    `yaml:"max_exchanges"` // last_n; default 20
	MaxTokens    int    `yaml:"max_tokens"`    // token_budget and summarize; default 4000
	KeepRecent   int    `yaml:"keep_recent"`   // summarize never touches the last N completed exchanges; default 4
	// Chain composes steps, each on the previous one's result, each run
	// only when its trigger fires. Set either Chain or the flat form.
	Chain []Step `yaml:"chain"`
}

// Step is one step of a chain: a strategy, its knobs (zero: the defaults)
// and when it runs.
type Step struct {
	Strategy     string  `yaml:"strategy"` // required
	MaxExchanges int     `yaml:"max_exchanges"`
	MaxTokens    int     `yaml:"max_tokens"`
	KeepRecent   int     `yaml:"keep_recent"`
	When         Trigger `yaml:"when"`
}

// Trigger says when a step runs. Zero: always. With both limits set, the
// step runs when either is exceeded.
type Trigger struct {
	TokensOver   int `yaml:"tokens_over"`   // the history counts more tokens than this
	MessagesOver int `yaml:"messages_over"` // the history has more messages than this
}

// DefaultConfig is the configuration used for every zero field.
func DefaultConfig() Config {
	return Config{Strategy: StrategyTokenBudget, MaxExchanges: 20, MaxTokens: 4000, KeepRecent: 4}
}

// step is the flat form as one step.
func (c Config) step() Step {
	return Step{Strategy: c.Strategy, MaxExchanges: c.MaxExchanges, MaxTokens: c.MaxTokens, KeepRecent: c.KeepRecent}
}

func (s Step) withDefaults() Step {
	d := DefaultConfig()
	if s.Strategy == "" {
		s.Strategy = d.Strategy
	}
	if s.MaxExchanges == 0 {
		s.MaxExchanges = d.MaxExchanges
	}
	if s.MaxTokens == 0 {
		s.MaxTokens = d.MaxTokens
	}
	if s.KeepRecent == 0 {
		s.KeepRecent = d.KeepRecent
	}
	return s
}

// Validate reports every problem of c, each naming its key path.
func (c Config) Validate() error {
	if len(c.Chain) == 0 {
		return errors.Join(c.step().validate("compaction")...)
	}
	var errs []error
	if c.step() != (Step{}) {
		errs = append(errs, errors.New("compaction.chain: set either chain or strategy/max_exchanges/max_tokens/keep_recent, not both"))
	}
	for i, s := range c.Chain {
		key := fmt.Sprintf("compaction.chain[%d]", i)
		if s.Strategy == "" {
			errs = append(errs, fmt.Errorf("%s.strategy: required (%s, %s, %s or %s)",
				key, StrategyNone, StrategyLastN, StrategyTokenBudget, StrategySummarize))
		}
		errs = append(errs, s.validate(key)...)
		errs = append(errs, s.unusedKnobs(key)...)
	}
	return errors.Join(errs...)
}

func (s Step) validate(key string) []error {
	var errs []error
	switch s.Strategy {
	case "", StrategyNone, StrategyLastN, StrategyTokenBudget, StrategySummarize:
	default:
		errs = append(errs, fmt.Errorf("%s.strategy: unknown %q (want %s, %s, %s, %s)",
			key, s.Strategy, StrategyNone, StrategyLastN, StrategyTokenBudget, StrategySummarize))
	}
	for _, f := range []struct {
		key string
		val int
	}{{"max_exchanges", s.MaxExchanges}, {"max_tokens", s.MaxTokens}, {"keep_recent", s.KeepRecent},
		{"when.tokens_over", s.When.TokensOver}, {"when.messages_over", s.When.MessagesOver}} {
		if f.val < 0 {
			errs = append(errs, fmt.Errorf("%s.%s: must not be negative, got %d", key, f.key, f.val))
		}
	}
	return errs
}

// unusedKnobs reports the knobs a chain step sets that its strategy does not
// read: in a chain they are most likely meant for another step.
func (s Step) unusedKnobs(key string) []error {
	uses := map[string][]string{
		StrategyLastN: {"max_exchanges"}, StrategyTokenBudget: {"max_tokens"},
		StrategySummarize: {"max_tokens", "keep_recent"},
	}[s.Strategy]
	var errs []error
	for _, f := range []struct {
		key string
		val int
	}{{"max_exchanges", s.MaxExchanges}, {"max_tokens", s.MaxTokens}, {"keep_recent", s.KeepRecent}} {
		if f.val != 0 && !slices.Contains(uses, f.key) {
			errs = append(errs, fmt.Errorf("%s.%s: not used by strategy %q", key, f.key, s.Strategy))
		}
	}
	return errs
}

// New builds the compactor cfg names. summarize needs p, and falls back on
// token_budget with the same budget; c counts tokens (nil: Heuristic).
func New(cfg Config, p botgw.Provider, c Counter) (botgw.Compactor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if c == nil {
		c = Heuristic
	}
	if len(cfg.Chain) == 0 {
		return build(cfg.step(), "compaction", p, c)
	}
	steps := make([]botgw.Compactor, len(cfg.Chain))
	for i, s := range cfg.Chain {
		comp, err := build(s, fmt.Sprintf("compaction.chain[%d]", i), p, c)
		if err != nil {
			return nil, err
		}
		steps[i] = comp
	}
	return Chain(steps...), nil
}

// build makes one step's compactor, behind its trigger when it has one.
func build(s Step, key string, p botgw.Provider, c Counter) (botgw.Compactor, error) {
	comp, err := strategy(s.withDefaults(), key, p, c)
	if err != nil || s.When == (Trigger{}) {
		return comp, err
	}
	t := s.When
	return When(func(h []botgw.Message) bool {
		return (t.TokensOver > 0 && CountMessages(c, h) > t.TokensOver) ||
			(t.MessagesOver > 0 && len(h) > t.MessagesOver)
	}, comp), nil
}

func strategy(s Step, key string, p botgw.Provider, c Counter) (botgw.Compactor, error) {
	switch s.Strategy {
	case StrategyNone:
		return None(), nil
	case StrategyLastN:
		return KeepLast(s.MaxExchanges), nil
	case StrategySummarize:
		if p == nil {
			return nil, fmt.Errorf("%s.strategy: summarize needs a provider", key)
		}
		return Summarize(p, s.MaxTokens, s.KeepRecent, c, TokenBudget(s.MaxTokens, c)), nil
	default:
		return TokenBudget(s.MaxTokens, c), nil
	}
}
