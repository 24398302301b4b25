package compaction

import (
	"fmt"
	"strings"
	"unicode/utf8"

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
				fmt.Fprintf(&b, "Earlier: user asked %q", clip(ex[0].Text, maxAskRunes))
			}
			if calls < maxCallsListed {
				fmt.Fprintf(&b, "; %s(%s) → %s", tc.Name, clip(tc.Arguments, maxArgsRunes), clip(outcome(tc), maxResultRunes))
			}
			calls++
		}
	}
	if calls > maxCallsListed {
		fmt.Fprintf(&b, "; and %d more tool calls", calls-maxCallsListed)
	}
	return b.String()
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

// clip puts s on one line and cuts it to n runes, marking a cut with "…".
// Only a prefix of a long s is looked at.
func clip(s string, n int) string {
	cut := false
	if limit := 4 * n * utf8.UTFMax; len(s) > limit {
		for limit > 0 && !utf8.RuneStart(s[limit]) {
			limit--
		}
		s, cut = s[:limit], true
	}
	s = strings.Join(strings.Fields(s), " ")
	if !cut && utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := 0
	for i := range s {
		if runes == n-1 {
			return s[:i] + "…"
		}
		runes++
	}
	return s + "…"
}
