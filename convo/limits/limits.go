// Package limits holds the per-chat limits that protect against abuse and
// runaway cost: tokens a day, model turns a minute, and the length of one
// input. The engine (convo) applies them around its turns.
package limits

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/codec"
)

// Config limits each chat. Zero fields are off.
type Config struct {
	// DailyTokens caps the input+output tokens a chat may use per UTC day.
	// Past it, a turn stores the user's message and answers DailyNotice
	// without calling the model. The check is made before each turn, so the
	// turn that crosses the cap still completes.
	DailyTokens int
	// TurnsPerMinute caps the model turns a chat may start in any minute
	// (at most 50, the turn records kept). A flood is not dropped and not
	// refused: the next turn waits until the window allows it, and all
	// input that arrived meanwhile is answered together as one turn.
	TurnsPerMinute int
	// DailyNotice is the reply past DailyTokens.
	DailyNotice string
	// MaxInputChars caps one input's text, in characters, for every
	// channel: longer text is cut to it before it is stored or sent to the
	// model, and the user gets CutNotice. Default 8000.
	MaxInputChars int
	// CutNotice tells the user their message was cut; "{max}" stands for
	// MaxInputChars.
	CutNotice string
}

// DefaultMaxInputChars is limits.max_input_chars when unset.
const DefaultMaxInputChars = 8000

// Window is the span TurnsPerMinute counts turns over.
const Window = time.Minute

// WithDefaults fills the notices and MaxInputChars when unset, caps
// TurnsPerMinute at the turn records kept, and puts MaxInputChars into
// CutNotice.
func (l Config) WithDefaults() Config {
	if l.DailyNotice == "" {
		l.DailyNotice = "You've chatted a lot today! I need a rest: come back tomorrow and we'll carry on."
	}
	l.TurnsPerMinute = min(l.TurnsPerMinute, codec.MaxRecords)
	if l.MaxInputChars <= 0 {
		l.MaxInputChars = DefaultMaxInputChars
	}
	if l.CutNotice == "" {
		l.CutNotice = "(Your message was too long: I read only its first {max} characters.)"
	}
	l.CutNotice = strings.ReplaceAll(l.CutNotice, "{max}", strconv.Itoa(l.MaxInputChars))
	return l
}

// Wait is how long a chat whose model turns started at recent (the last
// Window's, oldest first) must wait before its next model turn under
// TurnsPerMinute; zero when the window allows it.
func (l Config) Wait(recent []time.Time, now time.Time) time.Duration {
	if l.TurnsPerMinute <= 0 || len(recent) < l.TurnsPerMinute {
		return 0
	}
	return recent[len(recent)-l.TurnsPerMinute].Add(Window).Sub(now)
}

// Cut shortens input longer than MaxInputChars to it (at a character
// boundary) and marks it, so the turn can tell the user.
func (l Config) Cut(in botgw.Inbound) botgw.Inbound {
	if c, ok := cutText(in.Text, l.MaxInputChars); ok {
		in.Text, in.Cut = c, true
	}
	if in.Event != nil {
		if c, ok := cutText(in.Event.Text, l.MaxInputChars); ok {
			ev := *in.Event
			ev.Text, in.Event, in.Cut = c, &ev, true
		}
	}
	return in
}

// cutText is s cut to max characters, and whether it had to be cut.
func cutText(s string, max int) (string, bool) {
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}
