package convo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/botgw/botgw"
)

// A takeover: an operator pauses a chat, talks to the player, resumes.
// Every operator action is a KindOperator inbound in the chat's pending
// list, so it is applied in arrival order, by whichever replica runs the
// chat, and committed with the chat's state like any turn. While paused,
// input is stored in the history and the model is not called.

// paused reports whether an operator holds the chat at now.
func (env *envelope) paused(now time.Time) bool {
	return !env.PausedUntil.IsZero() && now.Before(env.PausedUntil)
}

// endExpiredPause forgets a pause whose time is up: it ended by itself.
func (env *envelope) endExpiredPause(now time.Time) {
	if !env.PausedUntil.IsZero() && !env.paused(now) {
		env.PausedUntil, env.PausedBy = time.Time{}, ""
	}
}

// applyOperator applies one operator action in its place among the input.
func (e *Engine) applyOperator(v *chatView, b *batch, in botgw.Inbound) {
	op := in.Op
	if op == nil {
		return
	}
	switch op.Action {
	case botgw.OpPause:
		v.env.PausedUntil, v.env.PausedBy = op.Until, op.Operator
	case botgw.OpResume:
		v.env.PausedUntil, v.env.PausedBy = time.Time{}, ""
	case botgw.OpMessage:
		if b.user != nil { // what the player said before stays before the answer
			v.env.History = append(v.env.History, *b.user)
			b.user = nil
		}
		b.asked = false // the operator answered it
		v.env.History = append(v.env.History, botgw.Message{Role: botgw.RoleAssistant,
			Text: in.Text, At: in.At, Operator: op.Operator})
		said := &v.env.History[len(v.env.History)-1]
		b.out = append(b.out, offered(botgw.Outbound{Chat: v.chat, ID: "op-" + in.ID, Text: in.Text}, in.Offer, said))
	case botgw.OpRedeliver:
		if op.Reply != nil { // sent as the operator asks, pause or not
			r := *op.Reply
			r.Held = ""
			if r.Meta[botgw.MetaBroadcast] != "" { // its broadcast item is settled already
				r.Meta = maps.Clone(r.Meta)
				delete(r.Meta, botgw.MetaBroadcast)
			}
			b.out = append(b.out, r)
		}
	}
}

// holdForOperator ends a turn of a paused chat: the player's words go into
// the history unanswered, the model is not called, nothing is said.
func (e *Engine) holdForOperator(env *envelope, b *batch, stats *TurnStats) {
	if b.user != nil {
		env.History = append(env.History, *b.user)
		b.user = nil
	}
	b.asked, b.respond = false, false
	// during a takeover the operator answers, the gateway's notices too
	b.replies = slices.DeleteFunc(b.replies, func(r string) bool {
		return r == e.cfg.UnsupportedNotice || r == e.cfg.Limits.CutNotice
	})
	if len(b.tags) > 0 { // broadcast events asked for a reply the operator now owes
		b.out = append(b.out, botgw.Outbound{Chat: b.last.Chat, ID: "held-" + b.last.ID, Held: heldPaused,
			Meta: map[string]string{botgw.MetaBroadcast: strings.Join(b.tags, " ")}})
		b.tags = nil
	}
	stats.Outcome = "paused"
}

// heldPaused is why a broadcast item reaching a paused chat is not sent.
const heldPaused = "the chat was paused by an operator"

// operatorInbound is an operator action ready for a chat's pending list.
func operatorInbound(k botgw.ChatKey, id string, op botgw.OperatorAction, text string) botgw.Inbound {
	if id == "" {
		b := make([]byte, 8)
		rand.Read(b)
		id = "op-" + hex.EncodeToString(b)
	}
	return botgw.Inbound{Chat: k, Kind: botgw.KindOperator, ID: id, UserID: op.Operator,
		Text: text, At: time.Now(), Op: &op}
}

// act puts an operator action into the chat's pending list. The chat must
// exist: an operator acts on a conversation, not on a typo.
func (o *Operator) act(ctx context.Context, k botgw.ChatKey, in botgw.Inbound) error {
	if _, err := o.Store.Info(ctx, k); err != nil {
		return err
	}
	deliver := o.Deliver
	if deliver == nil {
		deliver = o.Store.Append
	}
	err := deliver(ctx, in)
	if errors.Is(err, botgw.ErrDuplicate) {
		return nil
	}
	return err
}

// Pause takes chat k over for d (TakeoverTTL, default 30m, when d is 0) and
// returns when the pause ends by itself.
func (o *Operator) Pause(ctx context.Context, k botgw.ChatKey, d time.Duration, actor string) (time.Time, error) {
	if d <= 0 {
		d = o.TakeoverTTL
	}
	if d <= 0 {
		d = 30 * time.Minute
	}
	until := time.Now().Add(d).Truncate(time.Second)
	in := operatorInbound(k, "", botgw.OperatorAction{Action: botgw.OpPause, Operator: actor, Until: until}, "")
	err := o.act(ctx, k, in)
	o.record(ctx, AuditEntry{Actor: actor, Action: "pause", Target: k.String(), Detail: "until " + until.UTC().Format(time.RFC3339)}, err)
	if err != nil {
		return time.Time{}, fmt.Errorf("pause %s: %w", k, err)
	}
	return until, nil
}

// Resume hands chat k back to the assistant.
func (o *Operator) Resume(ctx context.Context, k botgw.ChatKey, actor string) error {
	in := operatorInbound(k, "", botgw.OperatorAction{Action: botgw.OpResume, Operator: actor}, "")
	err := o.act(ctx, k, in)
	o.record(ctx, AuditEntry{Actor: actor, Action: "resume", Target: k.String()}, err)
	if err != nil {
		return fmt.Errorf("resume %s: %w", k, err)
	}
	return nil
}

// Say sends text to chat k through its channel as the assistant, signed by
// operator in the history.
func (o *Operator) Say(ctx context.Context, k botgw.ChatKey, text, operator, actor string) error {
	in := operatorInbound(k, "", botgw.OperatorAction{Action: botgw.OpMessage, Operator: operator}, text)
	err := o.act(ctx, k, in)
	o.record(ctx, AuditEntry{Actor: actor, Action: "message", Target: k.String(), Detail: "as " + operator}, err)
	if err != nil {
		return fmt.Errorf("send operator message to %s: %w", k, err)
	}
	return nil
}

// Inject adds an app event to chat k, as /v1/events would.
func (o *Operator) Inject(ctx context.Context, k botgw.ChatKey, ev botgw.Event, actor string) error {
	if ev.ID == "" {
		ev.ID = operatorInbound(k, "", botgw.OperatorAction{}, "").ID
	}
	in := botgw.Inbound{Chat: k, Kind: botgw.KindEvent, ID: "evt:" + ev.ID, At: time.Now(), Event: &ev}
	err := o.act(ctx, k, in)
	o.record(ctx, AuditEntry{Actor: actor, Action: "event", Target: k.String()}, err)
	if err != nil {
		return fmt.Errorf("inject event into %s: %w", k, err)
	}
	return nil
}

// pauseText is the takeover part of /status, for operators.
func pauseText(env *envelope, now time.Time) string {
	if !env.paused(now) {
		return ""
	}
	s := " · Paused by an operator until " + env.PausedUntil.UTC().Format(time.RFC3339)
	if env.PausedBy != "" {
		s += " (" + env.PausedBy + ")"
	}
	return s
}

func cmdTakeoverUsage(context.Context, *Engine, *chatView) (string, bool) {
	return "Usage (operators): /pause <chat> [duration], e.g. /pause telegram:123456789 30m; /resume <chat>", false
}

// cmdPause takes another chat over from an operator's own chat.
func cmdPause(ctx context.Context, e *Engine, target botgw.ChatKey, rest, actor string) string {
	var d time.Duration
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil || d <= 0 {
			return fmt.Sprintf("Duration %q: want e.g. 30m or 2h.", rest)
		}
	}
	until, err := e.operator().Pause(ctx, target, d, actor)
	if errors.Is(err, botgw.ErrNotFound) {
		return fmt.Sprintf("No conversation found for %s.", target)
	}
	if err != nil {
		return fmt.Sprintf("Could not pause %s: %v", target, err)
	}
	return fmt.Sprintf("Paused %s until %s: the assistant stays quiet, the player's messages are kept. /resume %s hands it back.",
		target, until.UTC().Format(time.RFC3339), target)
}

// cmdResume hands another chat back to the assistant.
func cmdResume(ctx context.Context, e *Engine, target botgw.ChatKey, _, actor string) string {
	err := e.operator().Resume(ctx, target, actor)
	if errors.Is(err, botgw.ErrNotFound) {
		return fmt.Sprintf("No conversation found for %s.", target)
	}
	if err != nil {
		return fmt.Sprintf("Could not resume %s: %v", target, err)
	}
	return fmt.Sprintf("Resumed %s: the assistant answers its next message.", target)
}

// operator is the engine's own view of the operator actions, for in-chat
// commands (the audit entry is written by runCommand).
func (e *Engine) operator() *Operator {
	return &Operator{Store: e.deps.Store, Deliver: e.Handle, TakeoverTTL: e.cfg.TakeoverTTL, Log: e.log}
}
