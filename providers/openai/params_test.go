package openai

import (
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

// api.openai.com rejects max_tokens for newer models, so the official host
// gets max_completion_tokens (no network: only the encoded body is checked).
func TestOfficialHostUsesMaxCompletionTokens(t *testing.T) {
	for _, base := range []string{"", "https://api.openai.com/v1"} {
		p, err := New(Config{BaseURL: base, Model: "gpt-5-mini", MaxTokens: 200})
		if err != nil {
			t.Fatal(err)
		}
		body, err := p.body(botgw.Request{Messages: []botgw.Message{{Role: botgw.RoleUser, Text: "hi"}}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(body), `"max_completion_tokens":200`) || strings.Contains(string(body), `"max_tokens"`) {
			t.Errorf("base %q: body %s, want max_completion_tokens only", base, body)
		}
	}
}
