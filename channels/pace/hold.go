package pace

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxHold bounds one hold, whatever a platform asked.
const maxHold = time.Hour

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
	if left >= d {
		return nil
	}
	if err := p.rdb.Set(ctx, k, "1", d).Err(); err != nil {
		return fmt.Errorf("set hold %s: %w", scope, err)
	}
	p.log.Warn("platform rate limit: holding sends back", "scope", scope, "for", d)
	return nil
}

// HeldFor is how much longer the longest hold of scopes lasts (0: none).
func (p *Pacer) HeldFor(ctx context.Context, scopes ...string) (time.Duration, error) {
	if len(scopes) == 0 {
		return 0, nil
	}
	cmds := make([]*redis.DurationCmd, len(scopes))
	_, err := p.rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for i, s := range scopes {
			cmds[i] = pipe.PTTL(ctx, p.holdKey(s))
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("read holds: %w", err)
	}
	var longest time.Duration
	for _, c := range cmds {
		longest = max(longest, c.Val()) // -2 (no key) and -1 (no expiry) count as none
	}
	return longest, nil
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
