package pace

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// TypingSpeed is the pace of a human-like typing pause: characters a second.
const TypingSpeed = 20

// Range is a pause's bounds, written "1s..8s" in the config.
type Range struct{ Min, Max time.Duration }

// ParseRange reads "<min>..<max>" (Go durations, 0 ≤ min ≤ max); "" and
// "0" are no pause.
func ParseRange(s string) (Range, error) {
	if s == "" || s == "0" {
		return Range{}, nil
	}
	lo, hi, ok := strings.Cut(s, "..")
	if !ok {
		return Range{}, fmt.Errorf("%q: want <min>..<max>, like 1s..8s", s)
	}
	a, err1 := time.ParseDuration(strings.TrimSpace(lo))
	b, err2 := time.ParseDuration(strings.TrimSpace(hi))
	switch {
	case err1 != nil || err2 != nil:
		return Range{}, fmt.Errorf("%q: want <min>..<max> as durations, like 1s..8s", s)
	case a < 0 || b < a:
		return Range{}, errors.New(s + ": want 0 ≤ min ≤ max")
	case b > time.Minute:
		return Range{}, errors.New(s + ": max longer than 1m")
	}
	return Range{Min: a, Max: b}, nil
}

// For is the pause before sending text: its length at TypingSpeed,
// within the bounds.
func (r Range) For(text string) time.Duration {
	d := time.Duration(utf8.RuneCountInString(text)) * time.Second / TypingSpeed
	return min(max(d, r.Min), r.Max)
}
