package codec

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/botgw/botgw"
)

func TestPreviewOf(t *testing.T) {
	long := strings.Repeat("Head north past the fountain. ", 40)
	tests := []struct {
		name string
		m    botgw.Message
		want string
	}{
		{"user", botgw.Message{Role: botgw.RoleUser, Text: "  where\n\tnow?  "}, "player: where now?"},
		{"operator", botgw.Message{Role: botgw.RoleAssistant, Operator: "ada", Text: "hi"}, "operator ada: hi"},
		{"exactly the limit", botgw.Message{Role: botgw.RoleAssistant, Text: strings.Repeat("é", 100)},
			"assistant: " + strings.Repeat("é", 100)},
		{"one past the limit", botgw.Message{Role: botgw.RoleAssistant, Text: strings.Repeat("é", 101)},
			"assistant: " + strings.Repeat("é", 100) + "…"},
		{"long", botgw.Message{Role: botgw.RoleAssistant, Text: long},
			"assistant: " + long[:100] + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Preview(tt.m); got != tt.want {
				t.Errorf("Preview = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPreviewOfCutsLikeTheWholeText checks that stopping at the limit
// gives what joining all the words and cutting would.
func TestPreviewOfCutsLikeTheWholeText(t *testing.T) {
	whole := func(text string) string {
		text = strings.Join(strings.Fields(text), " ")
		if utf8.RuneCountInString(text) > previewRunes {
			text = string([]rune(text)[:previewRunes]) + "…"
		}
		return "player: " + text
	}
	for _, text := range []string{
		"", " ", "a", strings.Repeat("word ", 19) + "abcd", strings.Repeat("word ", 20) + "abcd",
		strings.Repeat("x", 99) + " y", strings.Repeat("x", 100) + "  \n y", strings.Repeat("x", 250),
		strings.Repeat("bad\xff ", 30), strings.Repeat("🏳️‍🌈 ", 40), strings.Repeat(" \u00a0\u2003", 50) + "end",
	} {
		if got, want := Preview(botgw.Message{Role: botgw.RoleUser, Text: text}), whole(text); got != want {
			t.Errorf("Preview(%q) = %q, want %q", text, got, want)
		}
	}
}

// BenchmarkPreviewOf is the chat list's preview of a reply as long as the
// load harness's, taken on every commit.
func BenchmarkPreviewOf(b *testing.B) {
	m := botgw.Message{Role: botgw.RoleAssistant, Text: strings.Repeat("Head north past the fountain, then look for the blue door. ", 8)}
	b.ReportAllocs()
	for b.Loop() {
		Preview(m)
	}
}
