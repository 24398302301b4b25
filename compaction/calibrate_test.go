package compaction

import (
	"context"
	"testing"

	"github.com/botgw/botgw"
)

func TestBudgetFollowsTheProvidersReportedUsage(t *testing.T) {
	for _, tc := range []struct {
		hint botgw.UsageHint
		want int
	}{
		{botgw.UsageHint{}, 4000},                                // no report yet
		{botgw.UsageHint{Estimated: 1000, Reported: 1300}, 3076}, // we under-count by 30 %: shrink
		{botgw.UsageHint{Estimated: 1000, Reported: 900}, 4000},  // we over-count: keep the budget
		{botgw.UsageHint{Estimated: 1000, Reported: 9000}, 2000}, // an odd report: at most half
	} {
		if got := budget(tc.hint, 4000); got != tc.want {
			t.Errorf("hint %+v: budget %d, want %d", tc.hint, got, tc.want)
		}
	}
}

func TestTokenBudgetShrinksWithTheHint(t *testing.T) {
	var h []botgw.Message
	for range 20 {
		h = append(h, botgw.Message{Role: botgw.RoleUser, Text: "a question of about forty characters....."},
			botgw.Message{Role: botgw.RoleAssistant, Text: "an answer of about forty characters......"})
	}
	c := TokenBudget(200, Heuristic)
	plain, _ := c.Compact(context.Background(), h, botgw.UsageHint{})
	hinted, _ := c.Compact(context.Background(), h, botgw.UsageHint{Estimated: 100, Reported: 200})
	if n := CountMessages(Heuristic, hinted); n > 100 || len(hinted) >= len(plain) {
		t.Errorf("with a 2x under-count reported, kept %d tokens (%d messages) vs %d messages without", n, len(hinted), len(plain))
	}
}
