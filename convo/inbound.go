package convo

import (
	"time"

	"github.com/botgw/botgw"
)

// Bounds of a time the store can encode (time.Time's JSON form is RFC 3339,
// years 0 to 9999).
var (
	minTime = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// normalize fills what an adapter left out and replaces what the store
// cannot hold: no kind is text; a missing time, or one outside years
// 0–9999 (a forged platform timestamp), is the time the input arrived.
func (e *Engine) normalize(in botgw.Inbound) botgw.Inbound {
	if in.Kind == "" {
		in.Kind = botgw.KindText
	}
	if in.At.IsZero() || in.At.Before(minTime) || !in.At.Before(maxTime) {
		in.At = e.now()
	}
	return in
}

// invalidReason says, without naming the chat (logs may not carry chat
// ids), why in can never be stored.
func invalidReason(in botgw.Inbound) string {
	if _, err := botgw.ParseChatKey(in.Chat.String()); err != nil {
		return "the chat key is not valid: a bad channel name, or braces or a newline in the id"
	}
	return "the message does not encode"
}
