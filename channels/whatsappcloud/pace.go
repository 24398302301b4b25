package whatsappcloud

import (
	"context"
	"errors"
	"fmt"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/ratelimit"
)

// Meta's pair rate: about one message every 6 s to one player, with short
// bursts allowed.
const (
	pairPerMinute = 10
	pairBurst     = 10
)

// scope is the hold scope of the number: a rate-limit code holds every
// chat back.
func (a *Adapter) scope() string { return Name + ":" + a.cfg.PhoneNumberID }

// paced waits for m's slots: the chat's (its own pace when the engine
// keeps it: a wa_id has one chat key) and the number's rate_per_second,
// shared by every replica, and out any hold of the number or the chat.
func (a *Adapter) paced(ctx context.Context, m botgw.Outbound) error {
	s := a.scope()
	chat := ratelimit.Rule{Key: s + ":chat:" + m.Chat.ID, Limit: ratelimit.PerMinute(pairPerMinute, pairBurst), Own: m.Pace}
	number := ratelimit.Rule{Key: s + ":number", Limit: ratelimit.PerSecond(a.cfg.rate(), 1)}
	if err := a.pacer.Wait(ctx, []string{s, s + ":chat:" + m.Chat.ID}, chat, number); err != nil {
		return fmt.Errorf("wait for the send limits: %w", err)
	}
	return nil
}

// held holds sends back after a rate-limit code: the number for its
// throughput codes, the chat for the pair rate, on every replica.
func (a *Adapter) held(ctx context.Context, k botgw.ChatKey, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		return
	}
	scope := a.scope()
	switch ae.Code {
	case codePairRate:
		scope += ":chat:" + k.ID
	case codeRateLimit, codeSpamRate:
	default:
		return
	}
	if err := a.pacer.Hold(ctx, scope, holdFor(ae.Code)); err != nil {
		a.log.Warn("could not share the rate limit hold", "err", err)
	}
}
