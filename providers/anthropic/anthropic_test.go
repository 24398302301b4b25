package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/anthropic"
	"github.com/botgw/botgw/providers/providertest"
)

func ok(text string) providertest.Respond {
	return providertest.Always(providertest.AnthropicText(text))
}

// complete sends req through a provider on the fake api whose reply cap
// is maxTokens (0: the default).
func complete(t *testing.T, api *providertest.Anthropic, maxTokens int, req botgw.Request) error {
	t.Helper()
	p, err := anthropic.New(anthropic.Config{BaseURL: api.URL, APIKey: "sk-ant-test", Model: "claude-sonnet-4-5", MaxTokens: maxTokens})
	if err != nil {
		return err
	}
	_, err = p.Complete(t.Context(), req)
	return err
}

func msg(role botgw.Role, text string) botgw.Message { return botgw.Message{Role: role, Text: text} }

func hi() botgw.Request { return botgw.Request{Messages: []botgw.Message{msg("user", "hi")}} }

// The behaviour every provider shares is in TestConformance; these tests
// cover what is Anthropic's own.

// Every call names the API version the request shapes are written for.
func TestAPIVersionHeader(t *testing.T) {
	api := providertest.NewAnthropic(t, ok("hi"))
	if err := complete(t, api, 0, hi()); err != nil {
		t.Fatal(err)
	}
	if v := api.Calls()[0].Header.Get("Anthropic-Version"); v != "2023-06-01" {
		t.Errorf("anthropic-version %q, want 2023-06-01", v)
	}
}

func TestLargeMaxTokensIsNotRefused(t *testing.T) {
	api := providertest.NewAnthropic(t, ok("long answer"))
	if err := complete(t, api, 64000, hi()); err != nil {
		t.Fatalf("err = %v; the SDK's non-streaming check must not refuse the call", err)
	}
	if got := api.Calls()[0].Body.MaxTokens; got != 64000 {
		t.Errorf("max_tokens = %d, want 64000", got)
	}
}

func TestContextMessagesMergeIntoOneUserTurn(t *testing.T) {
	api := providertest.NewAnthropic(t, ok("Nice!"))
	err := complete(t, api, 0, botgw.Request{Messages: []botgw.Message{
		msg("summary", "The player started at the station."),
		msg("event", "User has just visited Harrogate Theatre"),
		msg("user", "what now?"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	assertMessages(t, api.Calls()[0].Body.Messages, []providertest.AnthropicMessage{{Role: "user", Content: []providertest.AnthropicBlock{
		{Type: "text", Text: "[Summary of earlier conversation] The player started at the station."},
		{Type: "text", Text: "[App event] User has just visited Harrogate Theatre"},
		{Type: "text", Text: "what now?"},
	}}})
}

func TestHistoryStartingWithAssistantGetsAUserFirst(t *testing.T) {
	api := providertest.NewAnthropic(t, ok("Hello again."))
	err := complete(t, api, 0, botgw.Request{Messages: []botgw.Message{msg("assistant", "Welcome back!"), msg("user", "hi")}})
	if err != nil {
		t.Fatal(err)
	}
	got := api.Calls()[0].Body.Messages
	if len(got) != 3 || got[0].Role != "user" || got[1].Role != "assistant" || got[2].Role != "user" {
		t.Fatalf("messages = %+v, want user placeholder, assistant, user", got)
	}
}

// The API refuses tool_use blocks without tool definitions: with no tools
// on offer (the engine's tool-call limit), the used tools are declared
// with tool_choice none. A failed call's result is flagged is_error.
func TestUsedToolsDeclaredWithoutOffer(t *testing.T) {
	api := providertest.NewAnthropic(t, ok("You are at the theatre; the clock is down."))
	err := complete(t, api, 0, botgw.Request{Messages: []botgw.Message{
		msg("user", "where am I and what time is it?"),
		{Role: botgw.RoleAssistant, ToolCalls: []botgw.ToolCall{
			{ID: "toolu_01A", Name: "get_location", Arguments: `{"player":"p1"}`, Result: `{"place":"Harrogate Theatre"}`},
			{ID: "toolu_01B", Name: "get_time", Arguments: `{}`, Error: "clock service down"},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	body := api.Calls()[0].Body
	if len(body.Tools) != 2 || body.Tools[0].Name != "get_location" || body.Tools[1].Name != "get_time" {
		t.Errorf("tools = %+v, want the two used tools declared", body.Tools)
	}
	assertJSON(t, body.ToolChoice, `{"type":"none"}`)
	results := body.Messages[2].Content
	if len(results) != 2 || results[0].IsError != nil || results[1].IsError == nil || !*results[1].IsError {
		t.Errorf("tool results = %+v, want only the failed one flagged is_error", results)
	}
}

func assertMessages(t *testing.T, got, want []providertest.AnthropicMessage) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("messages sent:\n %s\nwant\n %s", g, w)
	}
}

func assertJSON(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	json.Unmarshal([]byte(want), &w)
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("JSON = %s, want %s", gb, wb)
	}
}
