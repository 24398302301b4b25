package ratelimit

import (
	"context"
	"fmt"
	"time"
)

// maxHold bounds one hold, whatever a platform or a provider asked.
const maxHold = time.Hour

// holdRecheck is how long a replica trusts what it last read of a scope's
// hold, so that a send costs no Redis call for it: a hold set by another
// replica is seen this much later at most (a send meanwhile may meet the
// platform's 429 and hold the scope itself), one set here at once.
const holdRecheck = 250 * time.Millisecond

// maxRemembered bounds the scopes whose holds a limiter remembers; past
// it, the reads older than holdRecheck are forgotten.
const maxRemembered = 4096

// heldScope is a scope's hold as known at read: in force until until
// (zero: none).
type heldScope struct{ until, read time.Time }

func (l *Limiter) holdKey(scope string) string { return l.keys.Hold + scope }

// Hold stops everything that checks scope for d, on this replica at once
// and on every replica through Redis (a 429's retry_after). A longer hold
// already in force is kept. On a limiter without Redis the hold is this
// replica's alone; when Redis fails, it still holds this replica.
func (l *Limiter) Hold(ctx context.Context, scope string, d time.Duration) error {
	d = min(d, maxHold)
	if d <= 0 {
		return nil
	}
	now := l.clock.Now()
	l.remember(scope, heldScope{until: now.Add(d), read: now})
	if l.rdb == nil {
		l.log.Warn("rate limited: holding back", "scope", scope, "for", d)
		return nil
	}
	k := l.holdKey(scope)
	left, err := l.rdb.PTTL(ctx, k).Result()
	if err != nil {
		return fmt.Errorf("read hold %s: %w", scope, err)
	}
	if left >= d {
		l.remember(scope, heldScope{until: now.Add(left), read: now})
		return nil
	}
	if err := l.rdb.Set(ctx, k, "1", d).Err(); err != nil {
		return fmt.Errorf("set hold %s: %w", scope, err)
	}
	l.log.Warn("rate limited: holding back", "scope", scope, "for", d)
	return nil
}

// HeldFor is how much longer the longest hold of scopes lasts (0: none).
// A hold read within holdRecheck is taken as read; an older one is read
// from Redis again, once per scope however many callers ask meanwhile.
func (l *Limiter) HeldFor(ctx context.Context, scopes ...string) (time.Duration, error) {
	now := l.clock.Now()
	var longest time.Duration
	for _, s := range scopes {
		h, fresh := l.known(s, now)
		if !fresh {
			var err error
			if h, err = l.read(ctx, s); err != nil {
				return 0, err
			}
		}
		longest = max(longest, h.until.Sub(now))
	}
	return longest, nil
}

// known is what this replica knows of scope's hold, and whether that is
// recent enough to go by (always, without Redis).
func (l *Limiter) known(scope string, now time.Time) (heldScope, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.holds[scope]
	if l.rdb == nil {
		return h, true
	}
	return h, ok && !now.Before(h.read) && now.Sub(h.read) < holdRecheck
}

// read reads scope's hold from Redis. Concurrent readers of one scope
// share one read, made on a context that outlives any one of them (the
// client's timeouts bound it); each waits for it until its own ctx ends.
func (l *Limiter) read(ctx context.Context, scope string) (heldScope, error) {
	bg := context.WithoutCancel(ctx)
	ch := l.reads.DoChan(scope, func() (any, error) {
		now := l.clock.Now()
		left, err := l.rdb.PTTL(bg, l.holdKey(scope)).Result()
		if err != nil {
			return nil, fmt.Errorf("read hold %s: %w", scope, err)
		}
		h := heldScope{read: now}
		if left > 0 { // -2 (no key) and -1 (no expiry) count as none
			h.until = now.Add(left)
		}
		return l.remember(scope, h), nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return heldScope{}, r.Err
		}
		return r.Val.(heldScope), nil
	case <-ctx.Done():
		return heldScope{}, ctx.Err()
	}
}

// remember records what is known of scope's hold and returns it: a hold
// is never shortened, so a hold known here (set by this replica) outlasts
// a read that finds less of it.
func (l *Limiter) remember(scope string, h heldScope) heldScope {
	l.mu.Lock()
	defer l.mu.Unlock()
	if old, ok := l.holds[scope]; ok && old.until.After(h.until) {
		h.until = old.until
	}
	if len(l.holds) >= maxRemembered {
		for s, old := range l.holds {
			if h.read.Sub(old.read) >= holdRecheck {
				delete(l.holds, s)
			}
		}
	}
	l.holds[scope] = h
	return h
}

// waitHolds sleeps until no hold of scopes is in force.
func (l *Limiter) waitHolds(ctx context.Context, scopes []string) error {
	for {
		d, err := l.HeldFor(ctx, scopes...)
		if err != nil || d <= 0 {
			return err
		}
		if err := l.clock.Sleep(ctx, d); err != nil {
			return err
		}
	}
}
