package main

import (
	"cmp"
	"fmt"
	"log/slog"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/anthropic"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/providers/fallback"
	"github.com/botgw/botgw/providers/openai"
)

// observer returns the metrics observer of a provider's HTTP attempts, by
// provider id; nil observes nothing.
type observer func(provider string) func(status int, retry bool)

// buildProvider builds the configured provider and, with a fallback, the
// chain. ids are the provider ids whose state the engine may continue.
func buildProvider(pc ProviderConfig, obs observer, log *slog.Logger) (p botgw.Provider, ids []string, err error) {
	p, err = oneProvider(pc.resolved(), obs)
	if err != nil {
		return nil, nil, err
	}
	ids = []string{p.ID()}
	if pc.Fallback != nil {
		second, err := oneProvider(pc.Fallback.resolved(), obs)
		if err != nil {
			return nil, nil, fmt.Errorf("provider.fallback: %w", err)
		}
		ids = append(ids, second.ID())
		p = fallback.New(p, second, log)
	}
	return p, ids, nil
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

// describeProvider says at start-up which provider answers.
func describeProvider(pc ProviderConfig) string {
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
	t := cmp.Or(max(pc.Timeout, 0), 60*time.Second)
	retries := 2 // the SDKs' default
	if pc.MaxRetries != nil {
		retries = *pc.MaxRetries
	}
	return time.Duration(retries+1)*t + 10*time.Second
}
