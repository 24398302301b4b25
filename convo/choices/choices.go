// Package choices holds the pure half of the choices a player can tap
// (CONTRACT.md, "Choices the player can tap"): the built-in tool
// offer_choices the model calls, the reference that names an offer, and
// how a tap or a typed answer maps back to a choice. The engine (convo)
// puts offers on replies and settles taps against the chat's history.
package choices

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/botgw/botgw"
)

// Tool is the name of the built-in tool the model calls to show choices.
const Tool = "offer_choices"

// TapNote answers a tap the gateway cannot trace back to a choice.
const TapNote = "Sorry, that button no longer works. Please type your answer."

// UnknownTap is what the history keeps of such a tap.
const UnknownTap = "[tapped a button that no longer works]"

// Spec describes the tool offer_choices to the model.
var Spec = botgw.ToolSpec{
	Name: Tool,
	Description: "Show the player up to 10 short choices as buttons under your reply (a numbered list " +
		"where the chat has no buttons). Call it with the options when the player should pick one; " +
		"write the reply itself as usual. A tap comes back as the player's message with the choice's text.",
	Parameters: json.RawMessage(`{"type":"object","properties":{` +
		`"choices":{"type":"array","minItems":1,"maxItems":10,"items":{"type":"string","minLength":1,"maxLength":64}},` +
		`"ask_location":{"type":"boolean","description":"also offer a button to share the player's location"}},` +
		`"required":["choices"]}`),
}

// args are offer_choices' arguments.
type args struct {
	Choices     []string `json:"choices"`
	AskLocation bool     `json:"ask_location"`
}

// Run checks an offer_choices call and returns the tool's result; the
// reply of the turn carries the offer (OfferOf). An error is for the
// model to correct.
func Run(arguments string) (string, error) {
	o, err := parse(arguments)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("The %d choices will be shown under your reply.", len(o.Choices)), nil
}

func parse(arguments string) (botgw.Offer, error) {
	var a args
	if err := json.Unmarshal([]byte(arguments), &a); err != nil {
		return botgw.Offer{}, fmt.Errorf("arguments: want {\"choices\": [\"...\"]}: %v", err)
	}
	o := botgw.Offer{Choices: a.Choices, AskLocation: a.AskLocation}
	if len(o.Choices) == 0 {
		return botgw.Offer{}, fmt.Errorf("choices: want 1 to %d choices", botgw.MaxChoices)
	}
	return o, o.Validate("choices")
}

// OfferOf is the offer of the last successful offer_choices call.
func OfferOf(calls []botgw.ToolCall) (botgw.Offer, bool) {
	for i := len(calls) - 1; i >= 0; i-- {
		if c := calls[i]; c.Name == Tool && c.Error == "" {
			if o, err := parse(c.Arguments); err == nil {
				return o, true
			}
		}
	}
	return botgw.Offer{}, false
}

// Ref names an offer by its chat and outbox id: 11 URL-safe characters,
// short enough for any platform's button data.
func Ref(k botgw.ChatKey, outboxID string) string {
	h := sha256.Sum256([]byte(k.String() + "\x00" + outboxID))
	return base64.RawURLEncoding.EncodeToString(h[:8])
}

// Offered puts offer on the outbound m and on the history message that
// says m's text (said, when not nil), and returns m.
func Offered(m botgw.Outbound, offer botgw.Offer, said *botgw.Message) botgw.Outbound {
	if offer.IsZero() {
		return m
	}
	offer.Ref = Ref(m.Chat, m.ID)
	m.Offer = offer
	if said != nil {
		said.Choices, said.ChoiceRef = offer.Choices, offer.Ref
	}
	return m
}

// LastAssistant is the latest assistant message of h, nil when none.
func LastAssistant(h []botgw.Message) *botgw.Message {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == botgw.RoleAssistant {
			return &h[i]
		}
	}
	return nil
}

// Resolve finds the label of a tap by its offer's reference in h.
func Resolve(h []botgw.Message, tap botgw.Tap) (string, bool) {
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

// Match maps a typed answer to one of the latest choices: its label (case
// and surrounding space aside) or, on numbered channels, its number.
func Match(choices []string, text string, numbered bool) (int, bool) {
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
