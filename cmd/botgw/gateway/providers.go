package gateway

import (
	"cmp"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/anthropic"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/providers/fallback"
	"github.com/botgw/botgw/providers/limit"
	"github.com/botgw/botgw/providers/openai"
)

// observer returns the metrics observer of a provider's HTTP attempts, by
// provider id; nil observes nothing.
type observer func(provider string) func(status int, retry bool)

// shaping is what buildProvider needs to put each provider behind its
// limits (providers/limit): the Redis its shared rates live in, and the key
// prefix they go under.
type shaping struct {
	rdb    redis.UniversalClient
	prefix string
	obs    observer
	log    *slog.Logger
	// watch, when set, is told of each limited provider (metrics).
	watch func(*limit.Provider)
}

// buildProvider builds the configured provider and, with a fallback, the
// chain; each member behind its own limits. ids are the provider ids whose
// state the engine may continue.
func buildProvider(pc ProviderConfig, sh shaping) (p botgw.Provider, ids []string, err error) {
	p, err = shapedProvider(pc.resolved(), sh)
	if err != nil {
		return nil, nil, err
	}
	ids = []string{p.ID()}
	if pc.Fallback != nil {
		second, err := shapedProvider(pc.Fallback.resolved(), sh)
		if err != nil {
			return nil, nil, fmt.Errorf("provider.fallback: %w", err)
		}
		ids = append(ids, second.ID())
		p = fallback.New(p, second, sh.log)
	}
	return p, ids, nil
}

// shapedProvider is one provider behind its max_concurrency and its
// requests and tokens per minute.
func shapedProvider(pc ProviderConfig, sh shaping) (botgw.Provider, error) {
	p, err := oneProvider(pc, sh.obs)
	if err != nil {
		return nil, err
	}
	lp, err := limit.New(p, limit.Config{MaxConcurrency: pc.MaxConcurrency, RequestsPerMinute: pc.RequestsPerMinute,
		TokensPerMinute: pc.TokensPerMinute, Key: sh.prefix + ":provider:" + p.ID()}, sh.rdb, sh.log)
	if err == nil && sh.watch != nil {
		sh.watch(lp)
	}
	return lp, err
}

func oneProvider(pc ProviderConfig, obs observer) (botgw.Provider, error) {
	retries := 0 // the SDK default
	if pc.MaxRetries != nil {
		retries = *pc.MaxRetries
		if retries == 0 {
			retries = -1 // explicitly none
		}
	}
	var observe func(int, bool)
	if obs != nil {
		observe = obs(pc.Kind + "/" + pc.Model) // the provider's ID()
	}
	switch pc.Kind {
	case "openai":
		return openai.New(openai.Config{BaseURL: pc.BaseURL, APIKey: pc.APIKey, Model: pc.Model, Timeout: pc.Timeout,
			MaxTokens: pc.MaxTokens, Temperature: pc.Temperature, MaxRetries: retries, Observe: observe})
	case "anthropic":
		return anthropic.New(anthropic.Config{BaseURL: pc.BaseURL, APIKey: pc.APIKey, Model: pc.Model, Timeout: pc.Timeout,
			MaxTokens: pc.MaxTokens, Temperature: pc.Temperature, MaxRetries: retries, Observe: observe})
	case "fake":
		return fake.New(), nil
	}
	return nil, fmt.Errorf("provider.kind: unknown %q", pc.Kind)
}

// DescribeProvider says at start-up which provider answers.
func DescribeProvider(pc ProviderConfig) string {
	r := pc.resolved()
	if r.Kind == "fake" {
		return "fake (demo replies; set OPENAI_API_KEY or ANTHROPIC_API_KEY, or provider.kind in a config, for a real model)"
	}
	s := r.Kind + " " + r.Model
	if r.BaseURL != "" {
		s += " at " + r.BaseURL
	}
	return s
}

// turnTimeout bounds a turn's provider work. Each member of the chain may
// use every attempt (timeout × (1 + max_retries)) plus backoff, so a hung
// primary still leaves the fallback its turn before the deadline.
func turnTimeout(pc ProviderConfig) time.Duration {
	d := attemptBudget(pc)
	if pc.Fallback != nil {
		d += attemptBudget(*pc.Fallback)
	}
	return d
}

func attemptBudget(pc ProviderConfig) time.Duration {
	t := cmp.Or(max(pc.Timeout, 0), openai.DefaultTimeout)
	retries := openai.DefaultMaxRetries // the same for both SDKs (providers/internal/wire)
	if pc.MaxRetries != nil {
		retries = *pc.MaxRetries
	}
	return time.Duration(retries+1)*t + 10*time.Second
}
