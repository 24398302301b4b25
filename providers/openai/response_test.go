package openai_test

import (
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/openai"
	"github.com/botgw/botgw/providers/providertest"
)

// TestUnusableSuccessBodies: a 200 whose body is not a completion, or has
// no choice, is a provider error (the turn apologises), not an empty reply.
func TestUnusableSuccessBodies(t *testing.T) {
	for name, tc := range map[string]struct{ body, code string }{
		"not JSON":   {`<html>gateway</html>`, "bad_response"},
		"no choices": {`{"id":"x","object":"chat.completion","choices":[],"usage":{}}`, "empty_response"},
	} {
		t.Run(name, func(t *testing.T) {
			api := providertest.NewOpenAI(t, providertest.Always(providertest.Answer{Status: 200, Body: tc.body}))
			p := newProvider(t, api, func(c *openai.Config) { c.MaxRetries = -1 })
			_, err := p.Complete(t.Context(), botgw.Request{Messages: []botgw.Message{msg("user", "hi")}})
			if pe := asProviderError(t, err); pe.Code != tc.code || pe.Provider != "openai/gpt-4o-mini" {
				t.Errorf("error = %+v, want code %q from openai/gpt-4o-mini", pe, tc.code)
			}
		})
	}
}

// BenchmarkComplete is the provider round trip of one turn against a local
// model: a 10-message history out, a reply with usage back. The fake server
// runs in the same process, so its work counts too.
func BenchmarkComplete(b *testing.B) {
	api := providertest.NewOpenAI(b, providertest.Always(
		providertest.Completion("Head north past the fountain, then look for the blue door.")))
	p, err := openai.New(openai.Config{BaseURL: api.URL + "/v1", APIKey: "sk-bench", Model: "gpt-4o-mini"})
	if err != nil {
		b.Fatal(err)
	}
	var history []botgw.Message
	for i := range 10 {
		role := botgw.RoleUser
		if i%2 == 1 {
			role = botgw.RoleAssistant
		}
		history = append(history, msg(role, "I'm at the clock tower, where is the next clue? Head north past the fountain."))
	}
	req := botgw.Request{System: "You are the friendly assistant of a location game.", Messages: history}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Complete(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}
