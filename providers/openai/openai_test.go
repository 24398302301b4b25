package openai_test

import (
	"errors"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/openai"
	"github.com/botgw/botgw/providers/providertest"
)

// The behaviour every provider shares is in TestConformance; these tests
// cover what is OpenAI's own.

// newProvider is a provider on the fake server api.
func newProvider(t *testing.T, api *providertest.OpenAI, edit func(*openai.Config)) *openai.Provider {
	t.Helper()
	cfg := openai.Config{BaseURL: api.URL + "/v1", APIKey: "sk-test", Model: "gpt-4o-mini"}
	if edit != nil {
		edit(&cfg)
	}
	p, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func msg(role botgw.Role, text string) botgw.Message { return botgw.Message{Role: role, Text: text} }

// A compatible server (Ollama, vLLM) documents max_tokens only, so it gets
// that and never max_completion_tokens.
func TestCompatibleServerGetsMaxTokens(t *testing.T) {
	api := providertest.NewOpenAI(t, providertest.Always(providertest.Completion("ok")))
	p := newProvider(t, api, func(c *openai.Config) { c.MaxTokens = 300 })
	if _, err := p.Complete(t.Context(), botgw.Request{Messages: []botgw.Message{msg("user", "hi")}}); err != nil {
		t.Fatal(err)
	}
	body := api.Calls()[0].Body
	if body.MaxTokens == nil || *body.MaxTokens != 300 || body.MaxCompletionTokens != nil {
		t.Errorf("max_tokens %v max_completion_tokens %v, want 300 and absent", body.MaxTokens, body.MaxCompletionTokens)
	}
}

// An assistant's calls go back as function calls, the type the API
// requires, each followed by its "tool" message.
func TestToolCallsAreFunctions(t *testing.T) {
	api := providertest.NewOpenAI(t, providertest.Always(providertest.Completion("ok")))
	_, err := newProvider(t, api, nil).Complete(t.Context(), botgw.Request{Messages: []botgw.Message{
		msg("user", "what time is it?"),
		{Role: botgw.RoleAssistant, ToolCalls: []botgw.ToolCall{{ID: "call_def", Name: "get_time", Arguments: `{}`, Result: "noon"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := api.Calls()[0].Body.Messages
	if len(got) != 3 || len(got[1].ToolCalls) != 1 || got[1].ToolCalls[0].Type != "function" || got[1].Content != nil ||
		got[2].Role != "tool" || got[2].ToolCallID != "call_def" {
		t.Errorf("messages = %+v, want user, an assistant function call without content, its tool message", got)
	}
}

func asProviderError(t *testing.T, err error) *botgw.ProviderError {
	t.Helper()
	pe, ok := errors.AsType[*botgw.ProviderError](err)
	if !ok {
		t.Fatalf("err = %v (%T), want *botgw.ProviderError", err, err)
	}
	return pe
}
