package convo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/choices"
	"github.com/botgw/botgw/convo/codec"
)

// A takeover: an operator pauses a chat, talks to the player, resumes.
// Every operator action is a KindOperator inbound in the chat's pending
// list, so it is applied in arrival order, by whichever replica runs the
// chat, and committed with the chat's state like any turn. While paused,
// input is stored in the history and the model is not called.

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
		b.out = append(b.out, choices.Offered(botgw.Outbound{Chat: v.chat, ID: "op-" + in.ID, Text: in.Text, Proactive: true}, in.Offer, said))
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
func (e *Engine) holdForOperator(env *codec.Envelope, b *batch, stats *TurnStats) {
	if b.user != nil {
		env.History = append(env.History, *b.user)
		b.user = nil
	}
	b.asked, b.respond = false, false
	// during a takeover the operator answers, the gateway's notices too
	b.replies = slices.DeleteFunc(b.replies, func(r string) bool {
		return r == e.cfg.UnsupportedNotice || r == e.cfg.Limits.CutNotice || slices.Contains(b.notices, r)
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

func cmdTakeoverUsage(context.Context, *Engine, *chatView) (string, bool) {
	return "Usage (operators): /pause <chat> [duration], e.g. /pause telegram:123456789 30m; /resume <chat>", false
}

// cmdPause takes another chat over from an operator's own chat (the
// audit entry is written by runCommand).
func cmdPause(ctx context.Context, e *Engine, target botgw.ChatKey, rest, actor string) string {
	d := e.cfg.TakeoverTTL
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil || d <= 0 {
			return fmt.Sprintf("Duration %q: want e.g. 30m or 2h.", rest)
		}
	}
	until := time.Now().Add(d).Truncate(time.Second)
	err := e.act(ctx, target, botgw.OperatorAction{Action: botgw.OpPause, Operator: actor, Until: until})
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
	err := e.act(ctx, target, botgw.OperatorAction{Action: botgw.OpResume, Operator: actor})
	if errors.Is(err, botgw.ErrNotFound) {
		return fmt.Sprintf("No conversation found for %s.", target)
	}
	if err != nil {
		return fmt.Sprintf("Could not resume %s: %v", target, err)
	}
	return fmt.Sprintf("Resumed %s: the assistant answers its next message.", target)
}

// act queues an operator action into another chat's pending list. The chat
// must exist: an operator acts on a conversation, not on a typo.
func (e *Engine) act(ctx context.Context, k botgw.ChatKey, op botgw.OperatorAction) error {
	if _, err := e.deps.Store.Info(ctx, k); err != nil {
		return err
	}
	if err := e.Handle(ctx, botgw.OperatorInput(k, "", op, "")); err != nil {
		return err
	}
	return nil
}
