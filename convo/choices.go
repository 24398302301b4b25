package convo

import (
	"strings"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/choices"
)

// Choices in the engine (CONTRACT.md, "Choices the player can tap"). A
// reply offers choices when the event that asked for it carried some, or
// when the model called the built-in tool offer_choices; a broadcast's or
// an operator's message carries its own. The history keeps the choices on
// the assistant message that offered them, with the offer's reference, so
// the chat's state remembers them on every replica: a tap the platform
// sent without its label is resolved there, and a typed answer that names
// the latest choices (its label, or its number where the channel shows a
// numbered list) is taken as a tap.

// OfferChoicesTool is the built-in tool the model calls to show choices.
const OfferChoicesTool = choices.Tool

func (e *Engine) numbered(k botgw.ChatKey) bool {
	n, ok := e.deps.Channels[k.Channel].(botgw.NumberedChoices)
	return ok && n.NumberedChoices()
}

// choiceInput settles what a player's text says about the choices
// offered, before it joins the turn: a tap without its label gets the label
// from the history; a tap that cannot be traced is kept in the history and
// answered with a short note (done is true then); a typed answer naming
// one of the latest choices counts as a tap of it.
func (e *Engine) choiceInput(v *chatView, b *batch, in botgw.Inbound) (out botgw.Inbound, done bool) {
	if in.Tap != nil && strings.TrimSpace(in.Text) == "" {
		label, found := choices.Resolve(v.env.History, *in.Tap)
		if found {
			in.Text = label
			return in, false
		}
		b.flushUser(v.env)
		v.env.History = append(v.env.History, botgw.Message{Role: botgw.RoleUser, Text: choices.UnknownTap,
			At: in.At, InboundIDs: []string{in.ID}, Tap: true})
		b.last = in
		b.replies = append(b.replies, choices.TapNote)
		return in, true
	}
	if last := choices.LastAssistant(v.env.History); in.Tap == nil && last != nil && len(last.Choices) > 0 {
		if i, ok := choices.Match(last.Choices, in.Text, e.numbered(v.chat)); ok {
			in.Text, in.Tap = last.Choices[i], &botgw.Tap{Ref: last.ChoiceRef, Index: i}
		}
	}
	return in, false
}
