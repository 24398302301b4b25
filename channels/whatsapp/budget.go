package whatsapp

import (
	"context"
	"fmt"
	"time"

	"go.mau.fi/whatsmeow/types"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/ratelimit"
)

// Send budgets. WhatsApp bans numbers for what looks like spam: many
// messages a day, and above all messages to people who never wrote to the
// number (temporary ban 101, "sent too many messages to people who don't
// have you in their address books"). So besides the even rate
// (rate_per_minute) every number has a daily cap, and chats whose player
// never wrote first (broadcast targets) get a lower rate of their own.
const (
	defaultDailyCap          = 1000
	defaultColdRatePerMinute = 2.0
	// wroteTTL is how long a player's message keeps their chat "warm".
	wroteTTL = 30 * 24 * time.Hour
	// dayPoll bounds one wait for the next day's budget, so a raised cap
	// (after a restart) is noticed.
	dayPoll = time.Minute
)

func (c Config) dailyCap() int {
	if c.DailyCap == 0 {
		return defaultDailyCap
	}
	return c.DailyCap
}

// coldRate is the configured cold rate; unset, the default, but never
// above the number's own rate.
func (c Config) coldRate() float64 {
	if c.ColdRatePerMinute == 0 {
		return min(defaultColdRatePerMinute, c.rate())
	}
	return c.ColdRatePerMinute
}

func (c Config) rate() float64 {
	if c.RatePerMinute == 0 {
		return defaultRatePerMinute
	}
	return c.RatePerMinute
}

// day is the UTC day of t, the daily cap's window.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// takeDaily waits until the number may send one more message today (UTC).
func (a *Adapter) takeDaily(ctx context.Context) error {
	warned := false
	for {
		now := a.clock()
		ok, err := a.shared.takeDaily(ctx, a.number(), day(now), a.cfg.dailyCap())
		if err != nil || ok {
			return err
		}
		next := now.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
		if !warned {
			a.counts.dailyCap.Add(1)
			a.log.Warn("whatsapp daily cap reached: messages wait for the next day (UTC)",
				"daily_cap", a.cfg.dailyCap(), "until", next.Format(time.RFC3339))
			warned = true
			defer a.waits.enter(waitDaily)()
		}
		if !a.wait(ctx, min(next.Sub(now), dayPoll)) {
			return ctx.Err()
		}
	}
}

// noteWrote marks the chat of a player's stored message as one they wrote
// to (its replies are not cold). A failure only makes later sends to the
// chat slower.
func (a *Adapter) noteWrote(ctx context.Context, in botgw.Inbound) {
	if in.Kind == botgw.KindEvent {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, a.tm.storeTimeout)
	defer cancel()
	if err := a.shared.markWrote(ctx, in.Chat.ID, wroteTTL); err != nil {
		a.log.Warn("whatsapp first contact not recorded", "chat", in.Chat, "err", err)
	}
}

// cold reports whether to is a chat whose player never wrote to the
// number (in wroteTTL). Groups the number is in are not cold.
func (a *Adapter) cold(ctx context.Context, to types.JID) (bool, error) {
	if to.Server == types.GroupServer {
		return false, nil
	}
	w, err := a.shared.wrote(ctx, to.String())
	return !w, err
}

// rules are the pace rules of one send to to: the number's rate and, for a
// cold chat, the lower cold rate first.
func (a *Adapter) rules(ctx context.Context, cli client, to types.JID) ([]ratelimit.Rule, error) {
	number := a.paceKey(cli)
	rules := []ratelimit.Rule{{Key: number, Limit: ratelimit.PerMinute(a.cfg.rate(), 1)}}
	c, err := a.cold(ctx, to)
	if err != nil {
		return nil, fmt.Errorf("first contact of %s: %w", to, err)
	}
	if c {
		rules = append([]ratelimit.Rule{{Key: number + ":cold", Limit: ratelimit.PerMinute(a.cfg.coldRate(), 1)}}, rules...)
	}
	return rules, nil
}

// paceKey names the linked number in the pacer.
func (a *Adapter) paceKey(cli client) string {
	pn, lid := cli.OwnIDs()
	number := pn.User
	if number == "" {
		number = lid.User
	}
	return "whatsapp:" + number
}
