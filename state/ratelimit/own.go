package ratelimit

import (
	"context"
	"time"

	"github.com/botgw/botgw"
)

// Take takes one slot of l from a chat's own pace at now and returns when
// the send may go (now or later): the GCRA redis_rate runs in Redis, run
// on the theoretical arrival time the chat keeps.
func (l Limit) Take(own *botgw.SendPace, now time.Time) time.Time {
	var at time.Time
	own.Advance(func(tat time.Time) time.Time {
		if tat.Before(now) {
			tat = now
		}
		at = tat.Add(-time.Duration(max(l.Burst, 1)-1) * l.Every)
		if at.Before(now) {
			at = now
		}
		return tat.Add(l.Every)
	})
	return at
}

// takeOwn takes one slot of r from the chat's own pace and waits for it:
// no Redis call, and no queue (one chat's sends are its lease holder's).
func (l *Limiter) takeOwn(ctx context.Context, r Rule, holds []string) error {
	if err := l.waitHolds(ctx, holds); err != nil {
		return err
	}
	now := l.clock.Now()
	if d := r.Limit.Take(r.Own, now).Sub(now); d > 0 {
		return l.clock.Sleep(ctx, d)
	}
	return nil
}
