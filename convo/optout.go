package convo

import (
	"context"
	"log/slog"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/streamrec"
)

// Opt-out and opt-in (/stop, the stop words, /start), and the consent rule
// applied where a turn takes its input: every proactive input (a
// broadcast's message, an event with respond, an operator's message) passes
// proactiveAllowed, and only a turn holding such input reads the chat's
// opt-out (docs/operating.md, "Players who don't want to be messaged").

// heldOptedOut is why a proactive message is settled unsent.
const heldOptedOut = "the player opted out"

// optOuts is the store's opt-out keeper; nil when the store keeps none.
func (e *Engine) optOuts() botgw.OptOuts {
	o, _ := e.deps.Store.(botgw.OptOuts)
	return o
}

// proactiveInput reports whether in is something the player did not ask for.
func proactiveInput(in botgw.Inbound) bool {
	switch in.Kind {
	case botgw.KindSay:
		return true
	case botgw.KindEvent:
		return in.Event != nil && in.Event.Respond
	case botgw.KindOperator:
		return in.Op != nil && in.Op.Action == botgw.OpMessage
	}
	return false
}

// readOptOut sets v.optedOut for a turn over pending: one Redis read, and
// only when the input holds something proactive (a reply to the player's
// own words reads nothing). A failed read counts as opted out: a message
// not sent is better than one sent to a player who said stop.
func (e *Engine) readOptOut(ctx context.Context, v *chatView, pending []botgw.Inbound, log *slog.Logger) {
	oo := e.optOuts()
	if oo == nil {
		return
	}
	for _, in := range pending {
		if !proactiveInput(in) {
			continue
		}
		at, err := oo.OptedOut(ctx, v.chat)
		if err != nil {
			log.Warn("read the chat's opt-out; keeping proactive messages back this turn", "err", err)
		}
		v.optedOut = err != nil || !at.IsZero()
		return
	}
}

// proactiveAllowed applies the consent rule to one proactive input; what
// it refuses is settled unsent (its broadcast item counted
// skipped_opted_out) and never enters the history.
func (e *Engine) proactiveAllowed(v *chatView, b *batch, in botgw.Inbound) bool {
	override := in.Op != nil && in.Op.Override
	if e.cfg.Proactive.Allows(v.optedOut, override) {
		return true
	}
	e.deps.Hooks.proactive("skipped_opted_out")
	if tag := in.Meta[botgw.MetaBroadcast]; tag != "" {
		b.out = append(b.out, botgw.Outbound{Chat: in.Chat, ID: "optout-" + in.ID, Held: heldOptedOut,
			Proactive: true, Meta: map[string]string{botgw.MetaBroadcast: tag}})
	}
	return false
}

// cmdStop opts the chat out of proactive messages.
func cmdStop(ctx context.Context, e *Engine, v *chatView) (string, bool) {
	oo := e.optOuts()
	if oo == nil {
		return "Sorry, this gateway cannot keep your choice.", false
	}
	if _, err := oo.OptOut(ctx, v.chat, e.now()); err != nil {
		e.log.Warn("opt out", "chat", v.chat, "err", err)
		return "Sorry, I could not record that just now. Please send /stop again.", false
	}
	v.optedOut = true
	e.deps.Hooks.optOut("stop")
	return "You won't get messages you did not ask for any more. I still answer when you write. Send /start to undo.", false
}

// cmdStart lifts the chat's opt-out. Without one it answers nothing and
// the turn reads "/start" as the player's words.
func cmdStart(ctx context.Context, e *Engine, v *chatView) (string, bool) {
	oo := e.optOuts()
	if oo == nil {
		return "Sorry, this gateway cannot keep your choice.", false
	}
	was, err := oo.OptIn(ctx, v.chat)
	if err != nil {
		e.log.Warn("opt in", "chat", v.chat, "err", err)
		return "Sorry, I could not record that just now. Please send /start again.", false
	}
	if !was { // a first "/start" (Telegram sends one) is the player's hello
		return "", false
	}
	v.optedOut = false
	e.deps.Hooks.optOut("start")
	return "Welcome back: you'll get our messages again. Send /stop to stop them.", false
}

// asContext is what is left of a proactive input refused: an event's
// context, without the reply it asked for.
func asContext(in botgw.Inbound) botgw.Inbound {
	if in.Kind == botgw.KindEvent && in.Event != nil {
		ev := *in.Event
		ev.Respond = false
		in.Event = &ev
	}
	return in
}

// recordConsent adds the stream record of an opt-out or opt-in.
func (b *batch) recordConsent(in botgw.Inbound, command string, optedOut bool) {
	switch {
	case command == "stop" && optedOut:
		b.record(in.Chat, streamrec.UserAgent(in), botgw.ActionOptOut, "", in.At)
	case command == "start" && !optedOut:
		b.record(in.Chat, streamrec.UserAgent(in), botgw.ActionOptIn, "", in.At)
	}
}
