package whatsapp

import (
	"context"
	"fmt"

	"go.mau.fi/whatsmeow/types"

	"github.com/botgw/botgw/channels/pace"
)

const (
	defaultRatePerMinute = 20.0
	defaultTypingDelay   = "1s..8s"
)

// paceSend runs before each message part: "composing…" in the chat for a
// human-like pause proportional to the part's length, then a slot of the
// linked number's rate (one every 60s/rate_per_minute, shared by every
// replica). The pause comes first so that sends stay at least an interval
// apart. Without a pacer (tests of other behaviour) it does nothing.
func (a *Adapter) paceSend(ctx context.Context, cli client, to types.JID, text string) error {
	if a.pacer == nil {
		return nil
	}
	if d := a.typingDelay.For(text); d > 0 {
		a.presence(ctx, cli, to, types.ChatPresenceComposing)
		if err := a.pacer.Sleep(ctx, d); err != nil {
			return err
		}
	}
	if err := a.pacer.Wait(ctx, nil, a.numberRule(cli)); err != nil {
		return fmt.Errorf("wait for the number's send limit: %w", err)
	}
	return nil
}

// numberRule is the limit of the linked number, evenly spaced (no burst:
// bursts are what gets numbers flagged).
func (a *Adapter) numberRule(cli client) pace.Rule {
	rate := a.cfg.RatePerMinute
	if rate == 0 {
		rate = defaultRatePerMinute
	}
	pn, lid := cli.OwnIDs()
	number := pn.User
	if number == "" {
		number = lid.User
	}
	return pace.Rule{Key: "whatsapp:" + number, Limit: pace.PerMinute(rate, 1)}
}

// typingRange is the configured typing pause; Validate has checked it.
func (c Config) typingRange() pace.Range {
	s := c.TypingDelay
	if s == "" {
		s = defaultTypingDelay
	}
	r, _ := pace.ParseRange(s)
	return r
}
