package convo

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/botgw/botgw"
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
const OfferChoicesTool = "offer_choices"

// tapNote answers a tap the gateway cannot trace back to a choice.
const tapNote = "Sorry, that button no longer works. Please type your answer."

// unknownTap is what the history keeps of such a tap.
const unknownTap = "[tapped a button that no longer works]"

var offerChoicesSpec = botgw.ToolSpec{
	Name: OfferChoicesTool,
	Description: "Show the player up to 10 short choices as buttons under your reply (a numbered list " +
		"where the chat has no buttons). Call it with the options when the player should pick one; " +
		"write the reply itself as usual. A tap comes back as the player's message with the choice's text.",
	Parameters: json.RawMessage(`{"type":"object","properties":{` +
		`"choices":{"type":"array","minItems":1,"maxItems":10,"items":{"type":"string","minLength":1,"maxLength":64}},` +
		`"ask_location":{"type":"boolean","description":"also offer a button to share the player's location"}},` +
		`"required":["choices"]}`),
}

// offerArgs are offer_choices' arguments.
type offerArgs struct {
	Choices     []string `json:"choices"`
	AskLocation bool     `json:"ask_location"`
}

// runOfferChoices checks an offer_choices call; the reply of the turn
// carries the offer (offerOf). An error is for the model to correct.
func runOfferChoices(arguments string) (string, error) {
	o, err := parseOffer(arguments)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("The %d choices will be shown under your reply.", len(o.Choices)), nil
}

func parseOffer(arguments string) (botgw.Offer, error) {
	var a offerArgs
	if err := json.Unmarshal([]byte(arguments), &a); err != nil {
		return botgw.Offer{}, fmt.Errorf("arguments: want {\"choices\": [\"...\"]}: %v", err)
	}
	o := botgw.Offer{Choices: a.Choices, AskLocation: a.AskLocation}
	if len(o.Choices) == 0 {
		return botgw.Offer{}, fmt.Errorf("choices: want 1 to %d choices", botgw.MaxChoices)
	}
	return o, o.Validate("choices")
}

// offerOf is the offer of the last successful offer_choices call.
func offerOf(calls []botgw.ToolCall) (botgw.Offer, bool) {
	for i := len(calls) - 1; i >= 0; i-- {
		if c := calls[i]; c.Name == OfferChoicesTool && c.Error == "" {
			if o, err := parseOffer(c.Arguments); err == nil {
				return o, true
			}
		}
	}
	return botgw.Offer{}, false
}

// offerRef names an offer by its chat and outbox id: 11 URL-safe
// characters, short enough for any platform's button data.
func offerRef(k botgw.ChatKey, outboxID string) string {
	h := sha256.Sum256([]byte(k.String() + "\x00" + outboxID))
	return base64.RawURLEncoding.EncodeToString(h[:8])
}

// offered puts offer on the outbound m and on the history message that
// says m's text, and returns m.
func offered(m botgw.Outbound, offer botgw.Offer, said *botgw.Message) botgw.Outbound {
	if offer.IsZero() {
		return m
	}
	offer.Ref = offerRef(m.Chat, m.ID)
	m.Offer = offer
	if said != nil {
		said.Choices, said.ChoiceRef = offer.Choices, offer.Ref
	}
	return m
}

// lastAssistant is the latest assistant message of h, nil when none.
func lastAssistant(h []botgw.Message) *botgw.Message {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == botgw.RoleAssistant {
			return &h[i]
		}
	}
	return nil
}

// resolveTap finds the label of a tap by its offer's reference.
func resolveTap(h []botgw.Message, tap botgw.Tap) (string, bool) {
	if tap.Ref == "" || tap.Data != "" {
		return "", false
	}
	for i := len(h) - 1; i >= 0; i-- {
		if m := h[i]; m.ChoiceRef == tap.Ref && tap.Index >= 0 && tap.Index < len(m.Choices) {
			return m.Choices[tap.Index], true
		}
	}
	return "", false
}

// matchChoice maps a typed answer to one of the latest choices: its label
// (case and surrounding space aside) or, on numbered channels, its number.
func matchChoice(choices []string, text string, numbered bool) (int, bool) {
	t := strings.TrimSpace(text)
	if n, err := strconv.Atoi(strings.TrimSuffix(t, ".")); err == nil && numbered {
		return n - 1, n >= 1 && n <= len(choices)
	}
	for i, c := range choices {
		if strings.EqualFold(t, strings.TrimSpace(c)) {
			return i, true
		}
	}
	return 0, false
}

// numberedChoices is a channel that shows choices as a numbered list.
type numberedChoices interface{ NumberedChoices() bool }

func (e *Engine) numbered(k botgw.ChatKey) bool {
	n, ok := e.deps.Channels[k.Channel].(numberedChoices)
	return ok && n.NumberedChoices()
}

// choiceInput settles what a player's text says about the choices
// offered, before it joins the turn: a tap without its label gets the label
// from the history; a tap that cannot be traced is kept in the history and
// answered with a short note (done is true then); a typed answer naming
// one of the latest choices counts as a tap of it.
func (e *Engine) choiceInput(v *chatView, b *batch, in botgw.Inbound) (out botgw.Inbound, done bool) {
	if in.Tap != nil && strings.TrimSpace(in.Text) == "" {
		label, found := resolveTap(v.env.History, *in.Tap)
		if found {
			in.Text = label
			return in, false
		}
		b.flushUser(v.env)
		v.env.History = append(v.env.History, botgw.Message{Role: botgw.RoleUser, Text: unknownTap,
			At: in.At, InboundIDs: []string{in.ID}, Tap: true})
		b.last = in
		b.replies = append(b.replies, tapNote)
		return in, true
	}
	if last := lastAssistant(v.env.History); in.Tap == nil && last != nil && len(last.Choices) > 0 {
		if i, ok := matchChoice(last.Choices, in.Text, e.numbered(v.chat)); ok {
			in.Text, in.Tap = last.Choices[i], &botgw.Tap{Ref: last.ChoiceRef, Index: i}
		}
	}
	return in, false
}
