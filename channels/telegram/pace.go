package telegram

import (
	"context"
	"fmt"
	"time"

	"github.com/botgw/botgw/state/ratelimit"
)

// botBurst lets a bot-wide slot missed by a few milliseconds be caught up
// without ever sending more than the rate over a second plus one message.
const botBurst = 2

// scope is the hold scope of the whole bot: a 429 holds every chat back.
func (a *adapter) scope() string { return fmt.Sprintf("telegram:%d", a.botID) }

// rules are the limits one message to t goes through, narrowest first: the
// chat, its group (group and channel ids are negative), the whole bot. A
// private chat without topics is sent to by its chat key's lease holder
// alone, so its own limit is kept with the chat (t.pace, from the engine)
// when there is one.
func (a *adapter) rules(t target) []ratelimit.Rule {
	s := a.scope()
	chat := ratelimit.Rule{Key: fmt.Sprintf("%s:chat:%d", s, t.chat), Limit: ratelimit.PerSecond(a.cfg.rate(), a.cfg.burst())}
	if t.chat > 0 && t.thread == 0 {
		chat.Own = t.pace
	}
	rules := []ratelimit.Rule{chat}
	if t.chat < 0 {
		rules = append(rules, ratelimit.Rule{Key: fmt.Sprintf("%s:group:%d", s, t.chat),
			Limit: ratelimit.PerMinute(orDefault(a.cfg.GroupRatePerMinute, defaultGroupRate), 1)})
	}
	if rate, burst, ok := a.cfg.botLimit(); ok {
		rules = append(rules, ratelimit.Rule{Key: s + ":bot", Limit: ratelimit.PerSecond(rate, burst)})
	}
	return rules
}

// paced waits for t's slots (and out any hold of the bot).
func (a *adapter) paced(ctx context.Context, t target) error {
	if err := a.pacer.Wait(ctx, []string{a.scope()}, a.rules(t)...); err != nil {
		return fmt.Errorf("wait for the send limits: %w", err)
	}
	return nil
}

// hold holds the whole bot back for retry_after on every replica.
func (a *adapter) hold(ctx context.Context, d time.Duration) {
	if err := a.pacer.Hold(ctx, a.scope(), d); err != nil {
		a.log.Warn("could not share the rate limit hold", "err", err)
	}
}
