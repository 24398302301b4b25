package convo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/botgw/botgw"
)

// Dead letters: what could not be delivered or processed is kept for an
// operator (list, retry, discard), never dropped silently. A reply goes
// there when the platform refuses it for good, when its channel is not
// configured, or when it still fails after Config.DeliveryAttempts rounds;
// input goes there through DeadLetterInput.

// deliverOne sends one reply. It returns nil when the reply is done with
// (delivered or dead-lettered) and an error when it stays in the outbox.
func (e *Engine) deliverOne(ctx context.Context, k botgw.ChatKey, m botgw.Outbound, log *slog.Logger) error {
	if m.Held != "" {
		e.hold(ctx, k, m, log)
		return nil
	}
	ch, known := e.deps.Channels[k.Channel]
	if !known {
		e.deadReply(ctx, k, m, "channel "+k.Channel+" is not configured", 0, log)
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
		e.deadReply(ctx, k, m, "refused by the platform: "+err.Error(), 1, log)
		e.sent(ctx, m, err)
		return nil
	}
	if ctx.Err() != nil { // shutting down: not the platform's fault
		return err
	}
	n := e.countFailure(ctx, k, m.ID, log)
	if n >= e.cfg.DeliveryAttempts {
		e.deadReply(ctx, k, m, fmt.Sprintf("still failing after %d delivery rounds: %v", n, err), n, log)
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
		e.deadReply(ctx, k, m, "held: "+m.Held, 0, log)
	}
	e.sent(ctx, m, errors.New("held: "+m.Held))
}

// deadLetters is where dead letters go; nil when the store keeps none.
func (e *Engine) deadLetters() botgw.DeadLetters {
	if e.deps.DeadLetters != nil {
		return e.deps.DeadLetters
	}
	d, _ := e.deps.Store.(botgw.DeadLetters)
	return d
}

// countFailure records one failed delivery round of outbox entry id and
// returns the rounds so far (0 when it cannot be counted: the reply then
// stays in the outbox, as before budgets existed).
func (e *Engine) countFailure(ctx context.Context, k botgw.ChatKey, id string, log *slog.Logger) int {
	d := e.deadLetters()
	if d == nil {
		return 0
	}
	n, err := d.DeliveryFailed(ctx, k, id)
	if err != nil {
		log.Warn("count failed delivery", "err", err)
		return 0
	}
	return n
}

// deadReply moves a reply to the dead letters.
func (e *Engine) deadReply(ctx context.Context, k botgw.ChatKey, m botgw.Outbound, reason string, attempts int, log *slog.Logger) {
	dl := botgw.DeadLetter{Chat: k.String(), Kind: botgw.DeadReply, Reason: reason, Attempts: attempts,
		Text: m.Text, Reply: &m}
	if err := e.deadLetter(ctx, dl, log); err != nil {
		log.Error("reply could not be delivered nor kept as a dead letter; dropping it", "err", err, "reason", reason)
		return
	}
	if d := e.deadLetters(); d != nil && attempts > 1 {
		if err := d.DeliveryDone(ctx, k, m.ID); err != nil {
			log.Warn("forget delivery attempts", "err", err)
		}
	}
}

// DeadLetterInput keeps input that can never be processed (it cannot be
// decoded, stored or answered) as a dead letter of kind "input", logs it
// at warn and counts it. Channels and the ingress call it where they would
// otherwise drop the input. in.Chat may be malformed. Safe for concurrent
// use; one Redis round trip.
func (e *Engine) DeadLetterInput(ctx context.Context, in botgw.Inbound, reason string) error {
	dl := botgw.DeadLetter{Chat: in.Chat.String(), Kind: botgw.DeadInput, Reason: reason, Text: in.Text}
	if _, err := botgw.ParseChatKey(dl.Chat); err == nil {
		if _, err := json.Marshal(in); err == nil { // kept whole only if it can be stored
			dl.Input = &in
		}
	}
	return e.deadLetter(ctx, dl, e.log.With("chat", in.Chat))
}

// deadLetter stores dl on a context that outlives shutdown, logs it at
// warn (the text only with LogContent) and counts it.
func (e *Engine) deadLetter(ctx context.Context, dl botgw.DeadLetter, log *slog.Logger) error {
	d := e.deadLetters()
	if d == nil {
		return errors.New("no dead-letter store")
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	dl.At = e.now()
	id, err := d.AddDeadLetter(ctx, dl)
	if err != nil {
		return fmt.Errorf("add dead letter: %w", err)
	}
	attrs := []any{"id", id, "kind", dl.Kind, "channel", dl.Channel(), "reason", dl.Reason, "attempts", dl.Attempts}
	if e.cfg.LogContent {
		attrs = append(attrs, "text", dl.Text)
	}
	log.Warn("dead letter: kept for an operator to retry or discard", attrs...)
	e.deps.Hooks.deadLetter(dl.Channel(), dl.Kind)
	return nil
}
