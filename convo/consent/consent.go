// Package consent is the one rule every proactive message passes: a
// broadcast's message, the reply to an event with respond, an operator's
// message (botgw.Outbound.Proactive). A player who opted out gets none; one
// due inside the bot's quiet hours waits until they end. Replies to the
// player's own messages are never asked (docs/operating.md, "Players who
// don't want to be messaged").
package consent

import (
	"fmt"
	"strings"
	"time"
)

// DefaultStopWords are what a player sends, as the whole message, to opt
// out, when the config names none.
var DefaultStopWords = []string{"STOP", "UNSUBSCRIBE"}

// Rules are a bot's consent rules. The zero value opts out on
// DefaultStopWords and has no quiet hours.
type Rules struct {
	StopWords []string
	Quiet     *QuietHours // nil: none
}

// IsStopWord reports whether text, as the whole message (any case, spaces
// around ignored), is one of the stop words. "stop" inside a sentence is
// an ordinary message.
func (r Rules) IsStopWord(text string) bool {
	words := r.StopWords
	if len(words) == 0 {
		words = DefaultStopWords
	}
	text = strings.TrimSpace(text)
	for _, w := range words {
		if strings.EqualFold(text, strings.TrimSpace(w)) {
			return true
		}
	}
	return false
}

// Allows is the opt-out rule: a player who opted out gets no proactive
// message, unless an operator overrides it (audited by the caller).
func (r Rules) Allows(optedOut, override bool) bool {
	return !optedOut || override
}

// Waits reports whether a proactive message due at now waits for the end
// of the quiet hours, and until when.
func (r Rules) Waits(now time.Time) (time.Time, bool) {
	return r.Quiet.Until(now)
}

// QuietHours are the hours of the day, in a timezone, when no proactive
// message goes out; From after To wraps midnight.
type QuietHours struct {
	From, To time.Duration // since midnight
	Loc      *time.Location
}

// ParseQuietHours reads "HH:MM" bounds and an IANA timezone. The error
// names the field at fault (from, to, timezone).
func ParseQuietHours(from, to, timezone string) (*QuietHours, error) {
	f, err := clockTime(from)
	if err != nil {
		return nil, &FieldError{Field: "from", Err: err}
	}
	t, err := clockTime(to)
	if err != nil {
		return nil, &FieldError{Field: "to", Err: err}
	}
	if f == t {
		return nil, &FieldError{Field: "to", Err: fmt.Errorf("%q equals from: quiet hours need a start and an end", to)}
	}
	if timezone == "" {
		return nil, &FieldError{Field: "timezone", Err: fmt.Errorf("required (an IANA name such as Europe/London)")}
	}
	loc, err := time.LoadLocation(timezone)
	if err != nil {
		return nil, &FieldError{Field: "timezone", Err: fmt.Errorf("%q is not an IANA timezone", timezone)}
	}
	return &QuietHours{From: f, To: t, Loc: loc}, nil
}

// FieldError is a quiet-hours setting that cannot be read.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// clockTime reads "HH:MM" (00:00 to 23:59) as the time since midnight.
func clockTime(s string) (time.Duration, error) {
	t, err := time.Parse("15:04", s)
	if err != nil {
		return 0, fmt.Errorf("%q: want HH:MM, e.g. 22:00", s)
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, nil
}

// Until reports whether now is inside the quiet hours and, if so, when
// they end. A nil QuietHours has none.
func (q *QuietHours) Until(now time.Time) (time.Time, bool) {
	if q == nil {
		return time.Time{}, false
	}
	local := now.In(q.Loc)
	y, m, d := local.Date()
	midnight := time.Date(y, m, d, 0, 0, 0, 0, q.Loc)
	at := local.Sub(midnight)
	switch {
	case q.From < q.To && at >= q.From && at < q.To:
		return wallClock(y, m, d, q.To, q.Loc), true
	case q.From > q.To && at >= q.From: // evening part: ends tomorrow
		return wallClock(y, m, d+1, q.To, q.Loc), true
	case q.From > q.To && at < q.To: // morning part: ends today
		return wallClock(y, m, d, q.To, q.Loc), true
	}
	return time.Time{}, false
}

// wallClock is the time of day since midnight on a date in loc (by the
// wall clock, so a daylight-saving change keeps "08:00" at 08:00).
func wallClock(y int, m time.Month, d int, since time.Duration, loc *time.Location) time.Time {
	return time.Date(y, m, d, int(since/time.Hour), int(since%time.Hour/time.Minute), 0, 0, loc)
}
