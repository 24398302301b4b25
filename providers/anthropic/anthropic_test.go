package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/anthropic"
	"github.com/botgw/botgw/providers/providertest"
)

func ok(text string) providertest.Respond {
	return providertest.Always(providertest.AnthropicText(text))
}

// newProvider is a provider on the fake server api.
func newProvider(t *testing.T, api *providertest.Anthropic, edit func(*anthropic.Config)) *anthropic.Provider {
	t.Helper()
	cfg := anthropic.Config{BaseURL: api.URL, APIKey: "sk-ant-test", Model: "claude-sonnet-4-5"}
	if edit != nil {
		edit(&cfg)
	}
	p, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func msg(role botgw.Role, text string) botgw.Message { return botgw.Message{Role: role, Text: text} }

func hi() botgw.Request { return botgw.Request{Messages: []botgw.Message{msg("user", "hi")}} }

func TestPlainTurn(t *testing.T) {
	api := providertest.NewAnthropic(t, ok("Head north to the theatre."))
	p := newProvider(t, api, func(c *anthropic.Config) { c.Temperature = new(0.2) })

	reply, err := p.Complete(t.Context(), botgw.Request{
		System:   "You are the game assistant.",
		Messages: []botgw.Message{msg("user", "hello"), msg("assistant", "Hi!"), msg("user", "where next?")},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := botgw.Reply{Text: "Head north to the theatre.", Usage: botgw.Usage{InputTokens: 2195, OutputTokens: 503}, Provider: "anthropic/claude-sonnet-4-5"}
	if reply.Text != want.Text || reply.Usage != want.Usage || reply.Provider != want.Provider {
		t.Errorf("reply = %+v, want %+v", reply, want)
	}

	call := api.Calls()[0]
	if call.Header.Get("X-Api-Key") != "sk-ant-test" || call.Header.Get("Anthropic-Version") != "2023-06-01" {
		t.Errorf("x-api-key %q anthropic-version %q", call.Header.Get("X-Api-Key"), call.Header.Get("Anthropic-Version"))
	}
	body := call.Body
	if body.Model != "claude-sonnet-4-5" || body.MaxTokens != anthropic.DefaultMaxTokens {
		t.Errorf("model %q max_tokens %d, want claude-sonnet-4-5, %d", body.Model, body.MaxTokens, anthropic.DefaultMaxTokens)
	}
	if body.Temperature == nil || *body.Temperature != 0.2 {
		t.Errorf("temperature = %v, want 0.2", body.Temperature)
	}
	if len(body.System) != 1 || body.System[0].Text != "You are the game assistant." {
		t.Errorf("system = %+v", body.System)
	}
	assertMessages(t, body.Messages, []providertest.AnthropicMessage{
		{Role: "user", Content: []providertest.AnthropicBlock{{Type: "text", Text: "hello"}}},
		{Role: "assistant", Content: []providertest.AnthropicBlock{{Type: "text", Text: "Hi!"}}},
		{Role: "user", Content: []providertest.AnthropicBlock{{Type: "text", Text: "where next?"}}},
	})
}

func TestLargeMaxTokensIsNotRefused(t *testing.T) {
	api := providertest.NewAnthropic(t, ok("long answer"))
	p := newProvider(t, api, func(c *anthropic.Config) { c.MaxTokens = 64000 })
	if _, err := p.Complete(t.Context(), hi()); err != nil {
		t.Fatalf("err = %v; the SDK's non-streaming check must not refuse the call", err)
	}
	if got := api.Calls()[0].Body.MaxTokens; got != 64000 {
		t.Errorf("max_tokens = %d, want 64000", got)
	}
}

func TestContextMessagesMergeIntoOneUserTurn(t *testing.T) {
	api := providertest.NewAnthropic(t, ok("Nice!"))
	p := newProvider(t, api, nil)
	_, err := p.Complete(t.Context(), botgw.Request{Messages: []botgw.Message{
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
	p := newProvider(t, api, nil)
	_, err := p.Complete(t.Context(), botgw.Request{Messages: []botgw.Message{msg("assistant", "Welcome back!"), msg("user", "hi")}})
	if err != nil {
		t.Fatal(err)
	}
	got := api.Calls()[0].Body.Messages
	if len(got) != 3 || got[0].Role != "user" || got[1].Role != "assistant" || got[2].Role != "user" {
		t.Fatalf("messages = %+v, want user placeholder, assistant, user", got)
	}
}

func TestToolCallReply(t *testing.T) {
	api := providertest.NewAnthropic(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		providertest.AnthropicMessageAnswer(`[{"type":"text","text":"Let me check."},
			{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"get_location","input":{"player":"p1"}},
			{"type":"tool_use","id":"toolu_01B","name":"get_time","input":{}}]`, "tool_use").Write(w)
	})
	p := newProvider(t, api, nil)
	reply, err := p.Complete(t.Context(), botgw.Request{
		Messages: []botgw.Message{msg("user", "where am I?")},
		Tools: []botgw.ToolSpec{
			{Name: "get_location", Description: "Where the player is", Parameters: json.RawMessage(`{"type":"object","properties":{"player":{"type":"string"}},"required":["player"]}`)},
			{Name: "get_time"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []botgw.ToolCall{
		{ID: "toolu_01A09q90qw90lq917835lq9", Name: "get_location", Arguments: `{"player":"p1"}`},
		{ID: "toolu_01B", Name: "get_time", Arguments: `{}`},
	}
	if reply.Text != "Let me check." || len(reply.ToolCalls) != 2 || reply.ToolCalls[0] != want[0] || reply.ToolCalls[1] != want[1] {
		t.Errorf("reply = %+v, want text and tool calls %+v", reply, want)
	}

	tools := api.Calls()[0].Body.Tools
	if len(tools) != 2 || tools[0].Name != "get_location" || tools[0].Description != "Where the player is" {
		t.Fatalf("tools sent = %+v", tools)
	}
	assertJSON(t, tools[0].InputSchema, `{"type":"object","properties":{"player":{"type":"string"}},"required":["player"]}`)
	assertJSON(t, tools[1].InputSchema, `{"type":"object","properties":{}}`)
}

func TestToolResultsSentBack(t *testing.T) {
	api := providertest.NewAnthropic(t, ok("You are at the theatre; the clock is down."))
	p := newProvider(t, api, nil)
	_, err := p.Complete(t.Context(), botgw.Request{Messages: []botgw.Message{
		msg("user", "where am I and what time is it?"),
		{Role: botgw.RoleAssistant, Text: "Checking.", ToolCalls: []botgw.ToolCall{
			{ID: "toolu_01A", Name: "get_location", Arguments: `{"player":"p1"}`, Result: `{"place":"Harrogate Theatre"}`},
			{ID: "toolu_01B", Name: "get_time", Arguments: `{}`, Error: "clock service down"},
		}},
		msg("event", "User earned 50 points"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	assertMessages(t, api.Calls()[0].Body.Messages, []providertest.AnthropicMessage{
		{Role: "user", Content: []providertest.AnthropicBlock{{Type: "text", Text: "where am I and what time is it?"}}},
		{Role: "assistant", Content: []providertest.AnthropicBlock{
			{Type: "text", Text: "Checking."},
			{Type: "tool_use", ID: "toolu_01A", Name: "get_location", Input: json.RawMessage(`{"player":"p1"}`)},
			{Type: "tool_use", ID: "toolu_01B", Name: "get_time", Input: json.RawMessage(`{}`)},
		}},
		{Role: "user", Content: []providertest.AnthropicBlock{
			{Type: "tool_result", ToolUseID: "toolu_01A", Content: []providertest.AnthropicBlock{{Type: "text", Text: `{"place":"Harrogate Theatre"}`}}},
			{Type: "tool_result", ToolUseID: "toolu_01B", IsError: &yes, Content: []providertest.AnthropicBlock{{Type: "text", Text: `{"error":"clock service down"}`}}},
			{Type: "text", Text: "[App event] User earned 50 points"},
		}},
	})
	// No tools on offer (the engine's tool-call limit): the API still needs
	// the used tools declared, with tool_choice none.
	body := api.Calls()[0].Body
	if len(body.Tools) != 2 || body.Tools[0].Name != "get_location" || body.Tools[1].Name != "get_time" {
		t.Errorf("tools = %+v, want the two used tools declared", body.Tools)
	}
	assertJSON(t, body.ToolChoice, `{"type":"none"}`)
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name      string
		header    http.Header
		answer    providertest.Answer
		retries   int
		wantCalls int
		want      botgw.ProviderError
		retryable bool
	}{{
		name:    "bad key is permanent",
		retries: 2, wantCalls: 1,
		answer:    providertest.AnthropicError(401, "authentication_error", "invalid x-api-key"),
		want:      botgw.ProviderError{Status: 401, Code: "authentication_error"},
		retryable: false,
	}, {
		name:    "overloaded after the configured retries",
		retries: 1, wantCalls: 2,
		answer:    providertest.AnthropicError(529, "overloaded_error", "Overloaded"),
		want:      botgw.ProviderError{Status: 529, Code: "overloaded_error"},
		retryable: true,
	}, {
		name:    "server error after the configured retries",
		retries: 1, wantCalls: 2,
		answer:    providertest.AnthropicError(500, "api_error", "Internal server error"),
		want:      botgw.ProviderError{Status: 500, Code: "api_error"},
		retryable: true,
	}, {
		name:    "rate limit carries Retry-After",
		retries: -1, wantCalls: 1,
		header:    http.Header{"Retry-After": {"7"}},
		answer:    providertest.AnthropicError(429, "rate_limit_error", "This request would exceed your organization's rate limit."),
		want:      botgw.ProviderError{Status: 429, Code: "rate_limit_error", RetryAfter: 7 * time.Second},
		retryable: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := providertest.NewAnthropic(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				for k, v := range tt.header {
					w.Header()[k] = v
				}
				tt.answer.Write(w)
			})
			p := newProvider(t, api, func(c *anthropic.Config) { c.MaxRetries = tt.retries })
			_, err := p.Complete(t.Context(), hi())

			pe := asProviderError(t, err)
			if pe.Status != tt.want.Status || pe.Code != tt.want.Code || pe.RetryAfter != tt.want.RetryAfter {
				t.Errorf("error = status %d code %q retry-after %s, want %+v", pe.Status, pe.Code, pe.RetryAfter, tt.want)
			}
			if pe.Provider != "anthropic/claude-sonnet-4-5" || pe.Retryable() != tt.retryable {
				t.Errorf("provider %q retryable %v, want anthropic/claude-sonnet-4-5, %v", pe.Provider, pe.Retryable(), tt.retryable)
			}
			if n := len(api.Calls()); n != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", n, tt.wantCalls)
			}
		})
	}
}

func TestRateLimitThenSuccess(t *testing.T) {
	api := providertest.NewAnthropic(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 0 {
			w.Header().Set("Retry-After", "0")
			providertest.AnthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit").Write(w)
			return
		}
		providertest.AnthropicText("made it").Write(w)
	})
	reply, err := newProvider(t, api, nil).Complete(t.Context(), hi())
	if err != nil || reply.Text != "made it" {
		t.Fatalf("reply = %+v, %v; want the answer of the retry", reply, err)
	}
	if n := len(api.Calls()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func TestAttemptTimeout(t *testing.T) {
	api := providertest.NewAnthropic(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	})
	p := newProvider(t, api, func(c *anthropic.Config) { c.Timeout = 50 * time.Millisecond; c.MaxRetries = -1 })
	_, err := p.Complete(t.Context(), hi())
	pe := asProviderError(t, err)
	if pe.Status != 0 || !pe.Retryable() || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v (status %d), want a retryable status-0 timeout", err, pe.Status)
	}
}

// A model that stalls past the attempt timeout is asked again, as
// max_retries promises for timeouts, within the turn's deadline.
func TestAttemptTimeoutIsRetried(t *testing.T) {
	api := providertest.NewAnthropic(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 0 {
			<-r.Context().Done() // the first attempt never gets an answer
			return
		}
		providertest.AnthropicText("second time lucky").Write(w)
	})
	p := newProvider(t, api, func(c *anthropic.Config) { c.Timeout = 200 * time.Millisecond; c.MaxRetries = 2 })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // the turn's deadline
	defer cancel()
	reply, err := p.Complete(ctx, hi())
	if err != nil || reply.Text != "second time lucky" {
		t.Fatalf("reply = %+v, %v; want the answer of the retry after the timed-out attempt", reply, err)
	}
	if n := len(api.Calls()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func TestEnvironmentIsIgnored(t *testing.T) {
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "token-from-env")
	api := providertest.NewAnthropic(t, ok("hi"))
	if _, err := newProvider(t, api, nil).Complete(t.Context(), hi()); err != nil {
		t.Fatal(err)
	}
	h := api.Calls()[0].Header
	if h.Get("X-Api-Key") != "sk-ant-test" || h.Get("Authorization") != "" {
		t.Errorf("x-api-key %q, authorization %q: the environment leaked in", h.Get("X-Api-Key"), h.Get("Authorization"))
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []anthropic.Config{{}, {Model: "m", BaseURL: "api.anthropic.com"}} {
		if _, err := anthropic.New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", cfg)
		}
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
