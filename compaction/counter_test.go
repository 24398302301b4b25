package compaction

import (
	"sync"
	"testing"

	"github.com/botgw/botgw"
)

func TestNewCounter(t *testing.T) {
	// "hello world" is 2 tokens in both OpenAI encodings and 3 by Heuristic.
	tests := []struct {
		model string
		want  int
	}{
		{"gpt-4o", 2}, {"gpt-4o-mini", 2}, {"openai/gpt-4o-mini", 2}, {"GPT-4.1-nano", 2},
		{"gpt-5", 2}, {"gpt-5.1", 2}, {"o1", 2}, {"o3-mini", 2}, {"o4-mini", 2},
		{"gpt-4", 2}, {"gpt-4-turbo", 2}, {"gpt-3.5-turbo", 2},
		{"claude-sonnet-4-5", 3}, {"llama3.1:8b", 3}, {"", 3},
	}
	for _, tt := range tests {
		if got := NewCounter(tt.model).Count("hello world"); got != tt.want {
			t.Errorf("NewCounter(%q).Count(\"hello world\") = %d, want %d", tt.model, got, tt.want)
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
