package compaction

import (
	"sync"
	"testing"

	"github.com/botgw/botgw"
)

func TestNewCounter(t *testing.T) {
	// This Hindi greeting is 9 tokens in o200k, 26 in cl100k and 17 by
	// Heuristic, so each model shows which counter it got.
	const text = "नमस्ते दुनिया, आप कैसे हैं"
	const o200k, cl100k, heuristic = 9, 26, 17
	tests := []struct {
		model string
		want  int
	}{
		{"gpt-4o", o200k}, {"gpt-4o-mini", o200k}, {"openai/gpt-4o-mini", o200k}, {"GPT-4.1-nano", o200k},
		{"gpt-5", o200k}, {"gpt-5.1", o200k}, {"o1", o200k}, {"o3-mini", o200k}, {"o4-mini", o200k},
		{"gpt-4", cl100k}, {"gpt-4-turbo", cl100k}, {"gpt-3.5-turbo", cl100k},
		{"claude-sonnet-4-5", heuristic}, {"llama3.1:8b", heuristic}, {"", heuristic},
	}
	for _, tt := range tests {
		if got := NewCounter(tt.model).Count(text); got != tt.want {
			t.Errorf("NewCounter(%q).Count(%q) = %d, want %d", tt.model, text, got, tt.want)
		}
	}
}

func TestHeuristic(t *testing.T) {
	for text, want := range map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, "héllo": 2} {
		if got := Heuristic.Count(text); got != want {
			t.Errorf("Heuristic.Count(%q) = %d, want %d", text, got, want)
		}
	}
}

func TestCounterIsSafeForConcurrentUse(t *testing.T) {
	c := NewCounter("gpt-4o")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got := c.Count("hello world"); got != 2 {
					t.Errorf("Count = %d, want 2", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCountMessages(t *testing.T) {
	h := []botgw.Message{
		user("abcdefgh"), // 4 + 2
		{Role: botgw.RoleAssistant, ToolCalls: []botgw.ToolCall{
			{ID: "call_1", Name: "get", Arguments: `{"a":1}`, Result: "ok"}, // 1 + 2 + 1
			{ID: "call_2", Name: "get", Arguments: "{}", Error: "failed"},   // 1 + 1 + 2
		}}, // 4 + 4 + 4
		assistant(""), // 4
	}
	if got, want := CountMessages(Heuristic, h), 6+12+4; got != want {
		t.Errorf("CountMessages = %d, want %d", got, want)
	}
	if got := CountMessages(Heuristic, nil); got != 0 {
		t.Errorf("CountMessages(nil) = %d, want 0", got)
	}
}
