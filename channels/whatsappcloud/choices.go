package whatsappcloud

import (
	"unicode/utf8"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels"
)

// The Cloud API's limits on interactive messages.
const (
	maxButtons     = 3  // reply buttons on one message
	maxButtonTitle = 20 // characters of a button's title
	maxRowTitle    = 24 // characters of a list row's title
	listButton     = "Choose"
)

// offerMessage renders an offer natively: up to three short choices as
// reply buttons, more (or longer) ones as a list whose rows carry the
// whole label in their description when the title must be cut; a request
// for the player's location as WhatsApp's location request. Each button
// or row id is channels.TapData, read back when the player taps.
func offerMessage(to, body string, o botgw.Offer) outMessage {
	if body == "" {
		body = "…" // an interactive message needs a body
	}
	in := &outInteractive{Body: outBody{Text: body}}
	switch {
	case len(o.Choices) == 0:
		in.Type, in.Action = "location_request_message", outAction{Name: "send_location"}
	case fitsButtons(o.Choices):
		in.Type = "button"
		for i, c := range o.Choices {
			in.Action.Buttons = append(in.Action.Buttons, outButton{Type: "reply", Reply: reply{ID: channels.TapData(o, i), Title: c}})
		}
	default:
		in.Type, in.Action.Button = "list", listButton
		rows := make([]outRow, 0, len(o.Choices))
		for i, c := range o.Choices {
			row := outRow{ID: channels.TapData(o, i), Title: c}
			if utf8.RuneCountInString(c) > maxRowTitle {
				row.Title, row.Description = cut(c, maxRowTitle), c
			}
			rows = append(rows, row)
		}
		in.Action.Sections = []outSection{{Rows: rows}}
	}
	return outMessage{Product: "whatsapp", Recipient: "individual", To: to, Type: "interactive", Interactive: in}
}

func fitsButtons(choices []string) bool {
	if len(choices) > maxButtons {
		return false
	}
	for _, c := range choices {
		if utf8.RuneCountInString(c) > maxButtonTitle {
			return false
		}
	}
	return true
}

// cut shortens s to n characters, the last an ellipsis.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
