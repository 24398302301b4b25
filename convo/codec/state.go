package codec

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/botgw/botgw"
)

// Paused reports whether an operator holds the chat at now.
func (e *Envelope) Paused(now time.Time) bool {
	return !e.PausedUntil.IsZero() && now.Before(e.PausedUntil)
}

// EndExpiredPause forgets a pause whose time is up: it ended by itself.
func (e *Envelope) EndExpiredPause(now time.Time) {
	if !e.PausedUntil.IsZero() && !e.Paused(now) {
		e.PausedUntil, e.PausedBy = time.Time{}, ""
	}
}

// utcDay names now's UTC day.
func utcDay(now time.Time) string { return now.UTC().Format(time.DateOnly) }

// TokensToday is what the chat used on now's UTC day.
func (e *Envelope) TokensToday(now time.Time) int {
	if e.Today != utcDay(now) {
		return 0
	}
	return e.TodayTokens
}

// AddUsage counts a turn's tokens in the cumulative and the daily total.
func (e *Envelope) AddUsage(u botgw.Usage, now time.Time) {
	e.Usage.InputTokens += u.InputTokens
	e.Usage.OutputTokens += u.OutputTokens
	if day := utcDay(now); e.Today != day {
		e.Today, e.TodayTokens = day, 0
	}
	e.TodayTokens += u.InputTokens + u.OutputTokens
}

// previewRunes is how much of the last message the chat list shows.
const previewRunes = 100

// Activity is what the chat list keeps of a chat after a commit.
func (e *Envelope) Activity(now time.Time) *botgw.ChatActivity {
	a := &botgw.ChatActivity{At: now}
	if e.Paused(now) {
		a.PausedUntil = e.PausedUntil
	}
	for i := len(e.History) - 1; i >= 0; i-- {
		if m := e.History[i]; m.Text != "" {
			a.Preview = Preview(m)
			break
		}
	}
	return a
}

// Preview is "who: text", on one line, cut to previewRunes.
func Preview(m botgw.Message) string {
	who := string(m.Role)
	switch {
	case m.Operator != "":
		who = "operator " + m.Operator
	case m.Role == botgw.RoleUser:
		who = "player"
	}
	text := squash(m.Text)
	if utf8.RuneCountInString(text) > previewRunes {
		text = string([]rune(text)[:previewRunes]) + "…"
	}
	return who + ": " + text
}

// squash joins the words of text by single spaces, stopping once it has
// more than previewRunes: the preview is cut there anyway, and a long reply
// is not split into words whole on every commit.
func squash(text string) string {
	var b strings.Builder
	b.Grow(min(len(text), previewRunes+previewRunes/4))
	n := 0
	for w := range strings.FieldsSeq(text) {
		if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		if n += utf8.RuneCountInString(w); n > previewRunes {
			break
		}
	}
	return b.String()
}
