package whatsapp

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"go.mau.fi/whatsmeow/types"
)

// defaultColdDailyCap is how many people who never wrote to the number it
// may write to first in one UTC day: messages to strangers are what
// WhatsApp bans numbers for (temporary ban 101).
const defaultColdDailyCap = 30

func (c Config) coldDailyCap() int {
	if c.ColdDailyCap == 0 {
		return defaultColdDailyCap
	}
	return c.ColdDailyCap
}

// takeColdScript counts chat among the day's cold contacts if the cap
// allows. KEYS[1] the day's set of cold chats written to; ARGV: chat,
// cap, the key's lifetime (ms). Returns 1 when the chat may be written to
// (already counted today, or counted now), 0 when the cap is reached.
var takeColdScript = redis.NewScript(`
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`)

// takeCold counts chat as one of day's cold contacts of number, under
// limit; false when the day's cap is reached.
func (s *shared) takeCold(ctx context.Context, number, day, chat string, limit int) (bool, error) {
	n, err := takeColdScript.Run(ctx, s.rdb, []string{s.key("cold", number, day)}, chat, limit, (48 * time.Hour).Milliseconds()).Int64()
	if err != nil {
		return false, fmt.Errorf("count whatsapp cold contacts of %s: %w", day, err)
	}
	return n == 1, nil
}

// coldOn is how many cold contacts day counted.
func (s *shared) coldOn(ctx context.Context, number, day string) (int64, error) {
	n, err := s.rdb.SCard(ctx, s.key("cold", number, day)).Result()
	if err != nil {
		return 0, fmt.Errorf("read whatsapp cold contacts of %s: %w", day, err)
	}
	return n, nil
}

// takeCold waits until the number may write to to today: at once when
// to's player wrote to the number (not cold) or was already written to
// today; otherwise when the day's cold contacts are under cold_daily_cap,
// which may be the next UTC day. Shared by every replica.
func (a *Adapter) takeCold(ctx context.Context, to types.JID) error {
	cold, err := a.cold(ctx, to)
	if err != nil || !cold {
		return err
	}
	var done func()
	defer func() {
		if done != nil {
			done()
		}
	}()
	for {
		now := a.clock()
		ok, err := a.shared.takeCold(ctx, a.number(), day(now), to.String(), a.cfg.coldDailyCap())
		if err != nil || ok {
			return err
		}
		if done == nil {
			a.counts.coldCap.Add(1)
			done = a.waits.enter(waitCold)
		}
		next := now.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
		if !a.wait(ctx, min(next.Sub(now), dayPoll)) {
			return ctx.Err()
		}
	}
}
