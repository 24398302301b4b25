package convo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/deadletter"
)

// Delivery of one reply, and where it goes when it cannot be delivered:
// the dead letters (convo/deadletter) take a reply the platform refuses
// for good, whose channel is not configured, or that still fails after
// Config.DeliveryAttempts rounds; input goes there through DeadLetterInput.
// A reply whose channel cannot send for now (PlatformError.Waiting: a
// banned or disconnected account) waits in the outbox without spending a
// round.

// deliverOne sends one reply. It returns nil when the reply is done with
// (delivered or dead-lettered) and an error when it stays in the outbox.
func (e *Engine) deliverOne(ctx context.Context, k botgw.ChatKey, m botgw.Outbound, log *slog.Logger) error {
	if m.Held != "" {
		e.hold(ctx, k, m, log)
		return nil
	}
	ch, known := e.deps.Channels[k.Channel]
	if !known {
		e.dead().Reply(ctx, k, m, "channel "+k.Channel+" is not configured", 0, log)
		return nil
	}
	cancelled, err := e.sendWatched(ctx, ch, m)
	if cancelled {
		log.Info("reply of a cancelled broadcast; dropping it unsent")
		e.sent(ctx, m, botgw.ErrCancelled)
		return nil
	}
	if err == nil {
		e.sent(ctx, m, nil)
		return nil
	}
	var pe *botgw.PlatformError
	if errors.As(err, &pe) && pe.Permanent {
		reason := "refused by the platform: " + err.Error()
		if pe.Reason != "" {
			reason = pe.Reason
		}
		e.dead().Reply(ctx, k, m, reason, 1, log)
		e.sent(ctx, m, err)
		return nil
	}
	if ctx.Err() != nil { // shutting down: not the platform's fault
		return err
	}
	if pe != nil && pe.Waiting != "" { // the channel cannot send for now: no round spent
		log.Info("reply waits in the outbox for the channel", "why", pe.Waiting)
		return err
	}
	n := e.dead().CountFailure(ctx, k, m.ID, log)
	if n >= e.cfg.DeliveryAttempts {
		e.dead().Reply(ctx, k, m, fmt.Sprintf("still failing after %d delivery rounds: %v", n, err), n, log)
		e.sent(ctx, m, err)
		return nil
	}
	log.Warn("deliver reply; kept in the outbox for a later attempt", "err", err, "round", n)
	return err
}

// hold settles a reply the gateway keeps from the player (Outbound.Held):
// its broadcast items fail with the reason, and its text, if any, waits in
// the dead letters for an operator to send.
func (e *Engine) hold(ctx context.Context, k botgw.ChatKey, m botgw.Outbound, log *slog.Logger) {
	if m.Text != "" {
		e.dead().Reply(ctx, k, m, "held: "+m.Held, 0, log)
	}
	e.sent(ctx, m, errors.New("held: "+m.Held))
}

// dead is the engine's dead-letter keeper (convo/deadletter); its Store
// is nil when the store keeps none.
func (e *Engine) dead() deadletter.Keeper {
	d := e.deps.DeadLetters
	if d == nil {
		d, _ = e.deps.Store.(botgw.DeadLetters)
	}
	return deadletter.Keeper{Store: d, LogContent: e.cfg.LogContent, Now: e.now, Kept: e.deps.Hooks.DeadLetter}
}

// DeadLetterInput keeps input that can never be processed (it cannot be
// decoded, stored or answered) as a dead letter of kind "input", logs it
// at warn and counts it. Channels and the ingress call it where they would
// otherwise drop the input. in.Chat may be malformed. Safe for concurrent
// use; one Redis round trip.
func (e *Engine) DeadLetterInput(ctx context.Context, in botgw.Inbound, reason string) error {
	return e.dead().Input(ctx, in, reason, e.log.With("chat", in.Chat))
}
