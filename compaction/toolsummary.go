package compaction

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/botgw/botgw"
)

// Limits of a tool summary line, in runes per part and calls per line.
const (
	maxAskRunes    = 100
	maxArgsRunes   = 80
	maxResultRunes = 100
	maxCallsListed = 4
)

// toolSummary is the one-line stand-in for a dropped exchange that used
// tools, or "" when it used none:
//
//	Earlier: user asked "weather in Paris?"; get_weather({"city":"Paris"}) → sunny 22°C
func toolSummary(ex []botgw.Message) string {
	var b strings.Builder
	calls := 0
	for _, m := range ex {
		for _, tc := range m.ToolCalls {
			if calls == 0 {
				b.WriteString("Earlier: user asked ")
				b.WriteString(strconv.Quote(clip(ex[0].Text, maxAskRunes)))
			}
			if calls < maxCallsListed {
				writeCall(&b, tc)
			}
			calls++
		}
	}
	if calls > maxCallsListed {
		fmt.Fprintf(&b, "; and %d more tool calls", calls-maxCallsListed)
	}
	return b.String()
}

func usedTools(ex []botgw.Message) bool {
	for _, m := range ex {
		if len(m.ToolCalls) > 0 {
			return true
		}
	}
	return false
}

func writeCall(b *strings.Builder, tc botgw.ToolCall) {
	b.WriteString("; ")
	b.WriteString(tc.Name)
	b.WriteByte('(')
	b.WriteString(clip(tc.Arguments, maxArgsRunes))
	b.WriteString(") → ")
	b.WriteString(clip(outcome(tc), maxResultRunes))
}

// outcome is what a tool call returned.
func outcome(tc botgw.ToolCall) string {
	switch {
	case tc.Error != "":
		return "error: " + tc.Error
	case tc.Result != "":
		return tc.Result
	default:
		return "no result"
	}
}

// clip puts s on one line, each run of white space becoming one space, and
// cuts it to n runes, marking a cut with "…".
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	runes, cut := 0, -1 // cut: where the kept part of s ends, once known
	space := false
	for i, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			runes, space = runes+1, false
		}
		if runes >= n-1 && cut < 0 {
			cut = i
		}
		if runes++; runes > n {
			return collapse(strings.TrimSpace(s[:cut])) + "…"
		}
	}
	return collapse(s)
}

// collapse turns each run of white space in s into one space.
func collapse(s string) string {
	if !needsCollapse(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func needsCollapse(s string) bool {
	prevSpace := false
	for _, r := range s {
		if r == ' ' && !prevSpace {
			prevSpace = true
			continue
		}
		if unicode.IsSpace(r) {
			return true
		}
		prevSpace = false
	}
	return false
}
