package compaction

import (
	"errors"
	"fmt"

	"github.com/botgw/botgw"
)

// Strategy names, as written in the config.
const (
	StrategyNone        = "none"
	StrategyLastN       = "last_n"
	StrategyTokenBudget = "token_budget"
	StrategySummarize   = "summarize"
)

// Config chooses and tunes the strategy. Zero fields take their defaults.
type Config struct {
	Strategy     string `yaml:"strategy"`      // none | last_n | token_budget | summarize; default token_budget
	MaxExchanges int    `yaml:"max_exchanges"` // last_n; default 20
	MaxTokens    int    `yaml:"max_tokens"`    // token_budget and summarize; default 4000
	KeepRecent   int    `yaml:"keep_recent"`   // summarize never touches the last N exchanges; default 4
}

// DefaultConfig is the configuration used for every zero field.
func DefaultConfig() Config {
	return Config{Strategy: StrategyTokenBudget, MaxExchanges: 20, MaxTokens: 4000, KeepRecent: 4}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Strategy == "" {
		c.Strategy = d.Strategy
	}
	if c.MaxExchanges == 0 {
		c.MaxExchanges = d.MaxExchanges
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = d.MaxTokens
	}
	if c.KeepRecent == 0 {
		c.KeepRecent = d.KeepRecent
	}
	return c
}

// Validate reports every problem of c, each naming its key path.
func (c Config) Validate() error {
	var errs []error
	switch c.Strategy {
	case "", StrategyNone, StrategyLastN, StrategyTokenBudget, StrategySummarize:
	default:
		errs = append(errs, fmt.Errorf("compaction.strategy: unknown %q (want %s, %s, %s, %s)",
			c.Strategy, StrategyNone, StrategyLastN, StrategyTokenBudget, StrategySummarize))
	}
	for _, f := range []struct {
		key string
		val int
	}{{"max_exchanges", c.MaxExchanges}, {"max_tokens", c.MaxTokens}, {"keep_recent", c.KeepRecent}} {
		if f.val < 0 {
			errs = append(errs, fmt.Errorf("compaction.%s: must not be negative, got %d", f.key, f.val))
		}
	}
	return errors.Join(errs...)
}

// New builds the compactor cfg names. summarize needs p, and falls back on
// token_budget with the same budget; c counts tokens (nil: Heuristic).
func New(cfg Config, p botgw.Provider, c Counter) (botgw.Compactor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if c == nil {
		c = Heuristic
	}
	switch cfg.Strategy {
	case StrategyNone:
		return None(), nil
	case StrategyLastN:
		return KeepLast(cfg.MaxExchanges), nil
	case StrategySummarize:
		if p == nil {
			return nil, errors.New("compaction.strategy: summarize needs a provider")
		}
		return Summarize(p, cfg.MaxTokens, cfg.KeepRecent, c, TokenBudget(cfg.MaxTokens, c)), nil
	default:
		return TokenBudget(cfg.MaxTokens, c), nil
	}
}
