package whatsapp

import "github.com/botgw/botgw/channels"

// Choices on WhatsApp: a linked device cannot send buttons or lists (they
// render only for the Business API), so an offer's choices are a numbered
// list under the reply's last part. The player answers with the number or
// the label; the engine maps either back to the choice, from the choices
// the chat's state remembers (NumberedChoices). WhatsApp has no location
// button: AskLocation is not shown.

// NumberedChoices reports that this channel shows choices as a numbered
// list, so a reply "1"…"N" picks one.
func (a *Adapter) NumberedChoices() bool { return true }

// numbered puts the choices under the last part.
func numbered(parts []string, choices []string) []string {
	if len(choices) == 0 {
		return parts
	}
	if len(parts) == 0 {
		return []string{channels.Numbered("", choices)}
	}
	parts[len(parts)-1] = channels.Numbered(parts[len(parts)-1], choices)
	return parts
}
