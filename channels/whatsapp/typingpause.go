package whatsapp

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// typingSpeed is the pace of a human-like typing pause: characters a second.
const typingSpeed = 20

// pauseRange is a typing pause's bounds, written "1s..8s" in the config.
type pauseRange struct{ Min, Max time.Duration }

// parsePauseRange reads "<min>..<max>" (Go durations, 0 ≤ min ≤ max); "" and
// "0" are no pause.
func parsePauseRange(s string) (pauseRange, error) {
	if s == "" || s == "0" {
		return pauseRange{}, nil
	}
	lo, hi, ok := strings.Cut(s, "..")
	if !ok {
		return pauseRange{}, fmt.Errorf("%q: want <min>..<max>, like 1s..8s", s)
	}
	a, err1 := time.ParseDuration(strings.TrimSpace(lo))
	b, err2 := time.ParseDuration(strings.TrimSpace(hi))
	switch {
	case err1 != nil || err2 != nil:
		return pauseRange{}, fmt.Errorf("%q: want <min>..<max> as durations, like 1s..8s", s)
	case a < 0 || b < a:
		return pauseRange{}, errors.New(s + ": want 0 ≤ min ≤ max")
	case b > time.Minute:
		return pauseRange{}, errors.New(s + ": max longer than 1m")
	}
	return pauseRange{Min: a, Max: b}, nil
}

// For is the pause before sending text: its length at typingSpeed,
// within the bounds.
func (r pauseRange) For(text string) time.Duration {
	d := time.Duration(utf8.RuneCountInString(text)) * time.Second / typingSpeed
	return min(max(d, r.Min), r.Max)
}
