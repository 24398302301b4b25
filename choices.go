package botgw

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the choices one message can offer (CONTRACT.md, "Choices the
// player can tap"). Every route that takes choices checks them
// (Offer.Validate); so does the model's offer_choices tool.
const (
	MaxChoices   = 10 // choices on one message
	MaxChoiceLen = 64 // characters of one choice's label
)

// Offer is what a message offers the player to tap: choices, each sent
// back as the player's words when tapped, and a "share my location"
// button where the platform has one.
type Offer struct {
	Choices     []string `json:"choices,omitempty"`
	AskLocation bool     `json:"ask_location,omitempty"`
	// Ref names the offer within its chat. Adapters that cannot carry the
	// label in a button put Ref and the choice's index there instead
	// (Telegram's 64-byte callback_data), so the engine can find the
	// label again in the chat's history when the platform does not send
	// the message back with the tap.
	Ref string `json:"ref,omitempty"`
}

// IsZero reports whether o offers nothing.
func (o Offer) IsZero() bool { return len(o.Choices) == 0 && !o.AskLocation }

// Validate checks the choices against the limits; field is the name of the
// choices in the request ("choices", "events[2].choices") and starts every
// error, so a 400 names what to fix.
func (o Offer) Validate(field string) error {
	if len(o.Choices) > MaxChoices {
		return fmt.Errorf("%s: at most %d choices, got %d", field, MaxChoices, len(o.Choices))
	}
	for i, c := range o.Choices {
		if err := validLabel(c); err != nil {
			return fmt.Errorf("%s[%d]: %w", field, i, err)
		}
	}
	return nil
}

func validLabel(c string) error {
	switch {
	case strings.TrimSpace(c) == "":
		return fmt.Errorf("empty label")
	case !utf8.ValidString(c):
		return fmt.Errorf("label is not valid UTF-8")
	case utf8.RuneCountInString(c) > MaxChoiceLen:
		return fmt.Errorf("label longer than %d characters (%d)", MaxChoiceLen, utf8.RuneCountInString(c))
	case strings.IndexFunc(c, unicode.IsControl) >= 0:
		return fmt.Errorf("label must be one line without control characters")
	}
	return nil
}

// Tap is a tap on a choice the gateway offered, as an adapter read it.
type Tap struct {
	Ref   string `json:"ref,omitempty"` // Offer.Ref of the message tapped; empty when unknown
	Index int    `json:"index"`         // the choice's place in Offer.Choices, from 0
	// Data is the platform's button data when it is none the gateway
	// wrote (a button of an older release, a forged callback): the tap
	// cannot be resolved and the player gets a short note.
	Data string `json:"data,omitempty"`
}

// NumberedChoices is a channel that shows choices as a numbered list, so
// a reply "1"…"N" picks one (the engine maps it back). Optional.
type NumberedChoices interface{ NumberedChoices() bool }
