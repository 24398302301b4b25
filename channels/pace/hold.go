package pace

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxHold bounds one hold, whatever a platform asked.
const maxHold = time.Hour

// holdRecheck is how long a replica trusts what it last read of a scope's
// hold, so that a send costs no Redis call for it: a hold set by another
// replica is seen this much later at most (a send meanwhile may meet the
// platform's 429 and hold the scope itself), one set here at once.
const holdRecheck = 250 * time.Millisecond

// maxRemembered bounds the scopes whose holds a pacer remembers; past it,
// the reads older than holdRecheck are forgotten.
const maxRemembered = 4096

// heldScope is a scope's hold as last read at read: in force until until
// (zero: none).
type heldScope struct{ until, read time.Time }

func (p *Pacer) holdKey(scope string) string { return p.prefix + ":pace:hold:" + scope }

// Hold stops every send that checks scope for d, on every replica (a 429's
// retry_after). A longer hold already in force is kept.
func (p *Pacer) Hold(ctx context.Context, scope string, d time.Duration) error {
	d = min(d, maxHold)
	if d <= 0 {
		return nil
	}
	k := p.holdKey(scope)
	left, err := p.rdb.PTTL(ctx, k).Result()
	if err != nil {
		return fmt.Errorf("read hold %s: %w", scope, err)
	}
	now := p.clock.Now()
	if left >= d {
		p.remember(scope, heldScope{until: now.Add(left), read: now})
		return nil
	}
	if err := p.rdb.Set(ctx, k, "1", d).Err(); err != nil {
		return fmt.Errorf("set hold %s: %w", scope, err)
	}
	p.remember(scope, heldScope{until: now.Add(d), read: now})
	p.log.Warn("platform rate limit: holding sends back", "scope", scope, "for", d)
	return nil
}

// HeldFor is how much longer the longest hold of scopes lasts (0: none).
// Holds read within holdRecheck are taken as read; the others are read
// from Redis in one round trip.
func (p *Pacer) HeldFor(ctx context.Context, scopes ...string) (time.Duration, error) {
	now := p.clock.Now()
	var longest time.Duration
	var stale []string
	p.mu.Lock()
	for _, s := range scopes {
		h, ok := p.holds[s]
		if !ok || now.Before(h.read) || now.Sub(h.read) >= holdRecheck {
			stale = append(stale, s)
			continue
		}
		longest = max(longest, h.until.Sub(now))
	}
	p.mu.Unlock()
	if len(stale) == 0 {
		return longest, nil
	}
	cmds := make([]*redis.DurationCmd, len(stale))
	_, err := p.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for i, s := range stale {
			cmds[i] = pipe.PTTL(ctx, p.holdKey(s))
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("read holds: %w", err)
	}
	for i, c := range cmds {
		h := heldScope{read: now}
		if left := c.Val(); left > 0 { // -2 (no key) and -1 (no expiry) count as none
			h.until = now.Add(left)
			longest = max(longest, left)
		}
		p.remember(stale[i], h)
	}
	return longest, nil
}

// remember records what is known of scope's hold.
func (p *Pacer) remember(scope string, h heldScope) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.holds) >= maxRemembered {
		for s, old := range p.holds {
			if h.read.Sub(old.read) >= holdRecheck {
				delete(p.holds, s)
			}
		}
	}
	p.holds[scope] = h
}

// waitHolds sleeps until no hold of scopes is in force.
func (p *Pacer) waitHolds(ctx context.Context, scopes []string) error {
	for {
		d, err := p.HeldFor(ctx, scopes...)
		if err != nil || d <= 0 {
			return err
		}
		if err := p.clock.Sleep(ctx, d); err != nil {
			return err
		}
	}
}
