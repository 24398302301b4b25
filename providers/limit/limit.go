// Package limit shapes the calls to one provider the way the provider
// wants them: at most MaxConcurrency calls in flight on this replica, served
// first come, first served; optional requests- and tokens-per-minute limits
// shared by every replica through Redis; and a 429 with Retry-After that
// holds back every caller, not only the one that got it. The rates and the
// pause are state/ratelimit's (GCRA on github.com/go-redis/redis_rate). The limiter waits, it never refuses: a call ends early only
// when its context does.
package limit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/semaphore"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/ratelimit"
)

// DefaultMaxConcurrency is the in-flight bound when Config leaves it zero.
const DefaultMaxConcurrency = 1024

// Config sets one provider's limits. Zero rates are off.
type Config struct {
	MaxConcurrency    int // model calls in flight on this replica; default 1024
	RequestsPerMinute int // shared by all replicas; 0 = off
	TokensPerMinute   int // shared by all replicas; 0 = off
	// Key names the provider's shared limits in Redis (the gateway uses
	// "<key_prefix>:provider:<provider id>"); required when a rate is set.
	Key string
}

var _ botgw.Provider = (*Provider)(nil)

// Provider wraps a botgw.Provider with the limits. Safe for concurrent use.
type Provider struct {
	next  botgw.Provider
	cfg   Config
	slots *semaphore.Weighted // FIFO: callers get a slot in arrival order
	lim   *ratelimit.Limiter  // the rates and the 429 pause; without a rate, on this replica alone
	log   *slog.Logger

	waiting  atomic.Int64
	inFlight atomic.Int64

	mu   sync.Mutex
	debt int // output tokens used but not yet charged to the tokens limit
}

// New wraps next. rdb may be nil when no rate is set; log may be nil.
func New(next botgw.Provider, cfg Config, rdb redis.UniversalClient, log *slog.Logger) (*Provider, error) {
	if cfg.MaxConcurrency <= 0 {
		cfg.MaxConcurrency = DefaultMaxConcurrency
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Provider{next: next, cfg: cfg, log: log, slots: semaphore.NewWeighted(int64(cfg.MaxConcurrency))}
	hl := log.With("provider", next.ID())
	if !cfg.shared() {
		p.lim = ratelimit.New(nil, ratelimit.Keys{}, hl)
		return p, nil
	}
	if rdb == nil || cfg.Key == "" {
		return nil, errors.New("limit: requests or tokens per minute need Redis and a key")
	}
	p.lim = ratelimit.New(rdb, ratelimit.Keys{Rate: cfg.Key + ":", Hold: cfg.Key + ":"}, hl)
	return p, nil
}

func (c Config) shared() bool { return c.RequestsPerMinute > 0 || c.TokensPerMinute > 0 }

// ID is the wrapped provider's ID.
func (p *Provider) ID() string { return p.next.ID() }

// Waiting is the number of calls queued for a slot or for the rate limits.
func (p *Provider) Waiting() int { return int(p.waiting.Load()) }

// InFlight is the number of calls at the model now.
func (p *Provider) InFlight() int { return int(p.inFlight.Load()) }

// Complete waits for a slot and for the limits, in arrival order, then
// calls the provider. It blocks until the model answered or ctx ended.
func (p *Provider) Complete(ctx context.Context, req botgw.Request) (botgw.Reply, error) {
	p.waiting.Add(1)
	err := p.slots.Acquire(ctx, 1)
	if err == nil {
		defer p.slots.Release(1)
		err = p.admit(ctx, req)
	}
	p.waiting.Add(-1)
	if err != nil {
		return botgw.Reply{}, fmt.Errorf("wait for %s: %w", p.next.ID(), err)
	}
	p.inFlight.Add(1)
	reply, err := p.next.Complete(ctx, req)
	p.inFlight.Add(-1)
	if pe, ok := errors.AsType[*botgw.ProviderError](err); ok && pe.Status == 429 {
		p.pause(pe.RetryAfter)
	}
	if err == nil && p.cfg.TokensPerMinute > 0 {
		p.mu.Lock()
		p.debt += reply.Usage.OutputTokens
		p.mu.Unlock()
	}
	return reply, err
}

// admit waits until the 429 pause is over and the shared limits allow the
// call, queued in arrival order at each limit, so only one caller per
// replica polls Redis for a limit and the others keep their order. If
// Redis fails the call goes ahead: the limits protect the provider, they
// must not stop the gateway.
func (p *Provider) admit(ctx context.Context, req botgw.Request) error {
	err := p.lim.Wait(ctx, []string{pauseScope}, p.rules(req)...)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	p.log.Warn("provider rate limit unavailable; calling without it", "provider", p.next.ID(), "err", err)
	return nil
}
