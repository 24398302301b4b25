package whatsapp

import (
	"context"
	"fmt"

	"go.mau.fi/whatsmeow/types"
)

const (
	defaultRatePerMinute = 20.0
	defaultTypingDelay   = "1s..8s"
)

// gate runs before each message part, in this order: wait while the
// number is held; for a chat whose player never wrote first, wait for a
// place among the day's cold contacts (cold_daily_cap); "composing…" in the chat for a human-like pause
// proportional to the part's length; a slot of the cold rate (for a chat
// whose player never wrote first) and of the number's rate (one every
// 60s/rate_per_minute, shared by every replica); one of the day's sends.
// The pause comes before the slots so that sends stay at least an
// interval apart. Without a pacer (tests of other behaviour) only the hold
// and the daily cap apply.
func (a *Adapter) gate(ctx context.Context, cli client, to types.JID, text string) error {
	if err := a.waitHold(ctx); err != nil {
		return fmt.Errorf("wait for the number's hold to end: %w", err)
	}
	if err := a.waitContactHold(ctx, to); err != nil {
		return fmt.Errorf("wait for the chat's hold to end: %w", err)
	}
	if err := a.takeCold(ctx, to); err != nil {
		return fmt.Errorf("wait for the day's cold contacts (cold_daily_cap): %w", err)
	}
	if a.pacer != nil {
		if err := a.paceSend(ctx, cli, to, text); err != nil {
			return err
		}
	}
	if err := a.takeDaily(ctx); err != nil {
		return fmt.Errorf("wait for the number's daily cap: %w", err)
	}
	return nil
}

func (a *Adapter) paceSend(ctx context.Context, cli client, to types.JID, text string) error {
	if d := a.typingDelay.For(text); d > 0 {
		a.presence(ctx, cli, to, types.ChatPresenceComposing)
		if err := a.pacer.Sleep(ctx, d); err != nil {
			return err
		}
	}
	rules, err := a.rules(ctx, cli, to)
	if err != nil {
		return err
	}
	if err := a.pacer.Wait(ctx, nil, rules...); err != nil {
		return fmt.Errorf("wait for the number's send limit: %w", err)
	}
	return nil
}

// typingRange is the configured typing pause; Validate has checked it.
func (c Config) typingRange() pauseRange {
	s := c.TypingDelay
	if s == "" {
		s = defaultTypingDelay
	}
	r, _ := parsePauseRange(s)
	return r
}
