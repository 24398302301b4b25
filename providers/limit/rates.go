package limit

import (
	"context"
	"errors"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

// defaultPause is how long a 429 without Retry-After holds callers back.
const defaultPause = time.Second

// waiter is one call's progress through the limits: each limit is charged
// once, so a call that passed one limit and waits on the other does not
// pay the first again.
type waiter struct {
	tokens           int
	requested, spent bool // requests limit charged, tokens limit charged
}

// delay is how long the call must still wait: the shared 429 pause, then
// each limit in turn. Zero means go.
func (p *Provider) delay(ctx context.Context, w *waiter) (time.Duration, error) {
	if d, err := p.pauseLeft(ctx); err != nil || d > 0 {
		return d, err
	}
	if !w.requested && p.cfg.RequestsPerMinute > 0 {
		res, err := p.rates.Allow(ctx, p.cfg.Key+":rpm", redis_rate.PerMinute(p.cfg.RequestsPerMinute))
		if err != nil {
			return 0, err
		}
		if res.Allowed == 0 {
			return res.RetryAfter, nil
		}
	}
	w.requested = true
	if !w.spent && p.cfg.TokensPerMinute > 0 {
		res, err := p.rates.AllowN(ctx, p.cfg.Key+":tpm", redis_rate.PerMinute(p.cfg.TokensPerMinute), w.tokens)
		if err != nil {
			return 0, err
		}
		if res.Allowed == 0 {
			return res.RetryAfter, nil
		}
	}
	w.spent = true
	return 0, nil
}

// charge is what the call costs the tokens limit: its estimated input plus
// the output of earlier calls, never more than the limit's burst (or the
// call could never pass).
func (p *Provider) charge(req botgw.Request) int {
	if p.cfg.TokensPerMinute <= 0 {
		return 0
	}
	p.mu.Lock()
	n := estimate(req) + p.debt
	p.debt = 0
	p.mu.Unlock()
	return max(1, min(n, p.cfg.TokensPerMinute))
}

// estimate counts a request's tokens roughly (4 characters each), as the
// tokenizer of every model differs and the limit only needs the scale.
func estimate(req botgw.Request) int {
	chars := len(req.System)
	for _, m := range req.Messages {
		chars += len(m.Text) + 16
		for _, c := range m.ToolCalls {
			chars += len(c.Arguments) + len(c.Result) + len(c.Error)
		}
	}
	return chars / 4
}

// pause holds every caller back for d after a 429: on this replica at
// once, and on every replica through Redis when shared limits are on.
func (p *Provider) pause(d time.Duration) {
	if d <= 0 {
		d = defaultPause
	}
	p.mu.Lock()
	if until := time.Now().Add(d); until.After(p.pausedUntil) {
		p.pausedUntil = until
	}
	p.mu.Unlock()
	p.log.Warn("provider rate limited; holding its calls back", "provider", p.next.ID(), "for", d)
	if p.rates == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := p.rdb.SetArgs(ctx, p.cfg.Key+":pause", "1", redis.SetArgs{TTL: d}).Err()
	if err != nil {
		p.log.Warn("share provider pause", "provider", p.next.ID(), "err", err)
	}
}

// localPause is what is left of this replica's copy of the pause.
func (p *Provider) localPause() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return time.Until(p.pausedUntil)
}

// pauseLeft is the longer of the local pause and the shared one.
func (p *Provider) pauseLeft(ctx context.Context) (time.Duration, error) {
	local := p.localPause()
	if p.rates == nil {
		return local, nil
	}
	shared, err := p.rdb.PTTL(ctx, p.cfg.Key+":pause").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return local, err
	}
	return max(local, shared), nil
}
