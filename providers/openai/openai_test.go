package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/openai"
	"github.com/botgw/botgw/providers/providertest"
)

func ok(text string) providertest.Respond { return providertest.Always(providertest.Completion(text)) }

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

func TestPlainTurn(t *testing.T) {
	api := providertest.NewOpenAI(t, ok("Head north to the theatre."))
	p := newProvider(t, api, func(c *openai.Config) { c.MaxTokens = 300; c.Temperature = new(0.2) })

	reply, err := p.Complete(t.Context(), botgw.Request{
		System:   "You are the game assistant.",
		Messages: []botgw.Message{msg("user", "hello"), msg("assistant", "Hi!"), msg("user", "where next?")},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := botgw.Reply{Text: "Head north to the theatre.", Usage: botgw.Usage{InputTokens: 57, OutputTokens: 9}, Provider: "openai/gpt-4o-mini"}
	if reply.Text != want.Text || reply.Usage != want.Usage || reply.Provider != want.Provider {
		t.Errorf("reply = %+v, want %+v", reply, want)
	}

	call := api.Calls()[0]
	if got := call.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
	body := call.Body
	if body.Model != "gpt-4o-mini" || body.MaxTokens == nil || *body.MaxTokens != 300 || body.MaxCompletionTokens != nil {
		t.Errorf("model %q max_tokens %v max_completion_tokens %v: want gpt-4o-mini, 300, absent on a compatible server",
			body.Model, body.MaxTokens, body.MaxCompletionTokens)
	}
	if body.Temperature == nil || *body.Temperature != 0.2 {
		t.Errorf("temperature = %v, want 0.2", body.Temperature)
	}
	assertMessages(t, body.Messages, []providertest.OpenAIMessage{
		{Role: "system", Content: "You are the game assistant."},
		{Role: "user", Content: "hello"},
		{Role: "assistant", Content: "Hi!"},
		{Role: "user", Content: "where next?"},
	})
	if len(body.Tools) != 0 {
		t.Errorf("tools = %+v, want none", body.Tools)
	}
}

func TestEventAndSummaryAreUserContext(t *testing.T) {
	api := providertest.NewOpenAI(t, ok("Nice!"))
	p := newProvider(t, api, nil)
	_, err := p.Complete(t.Context(), botgw.Request{Messages: []botgw.Message{
		msg("summary", "The player started at the station."),
		msg("event", "User has just visited Harrogate Theatre"),
		msg("user", "what now?"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	assertMessages(t, api.Calls()[0].Body.Messages, []providertest.OpenAIMessage{
		{Role: "user", Content: "[Summary of earlier conversation] The player started at the station."},
		{Role: "user", Content: "[App event] User has just visited Harrogate Theatre"},
		{Role: "user", Content: "what now?"},
	})
}

func TestToolCallReply(t *testing.T) {
	api := providertest.NewOpenAI(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		providertest.ToolCalls([3]string{"call_abc", "get_location", `{"player":"p1"}`}, [3]string{"call_def", "get_time", `{}`}).Write(w)
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
		{ID: "call_abc", Name: "get_location", Arguments: `{"player":"p1"}`},
		{ID: "call_def", Name: "get_time", Arguments: `{}`},
	}
	if len(reply.ToolCalls) != 2 || reply.ToolCalls[0] != want[0] || reply.ToolCalls[1] != want[1] {
		t.Errorf("tool calls = %+v, want %+v", reply.ToolCalls, want)
	}

	tools := api.Calls()[0].Body.Tools
	if len(tools) != 2 || tools[0].Type != "function" || tools[0].Function.Name != "get_location" ||
		tools[0].Function.Description != "Where the player is" {
		t.Fatalf("tools sent = %+v", tools)
	}
	assertJSON(t, tools[0].Function.Parameters, `{"type":"object","properties":{"player":{"type":"string"}},"required":["player"]}`)
	assertJSON(t, tools[1].Function.Parameters, `{"type":"object","properties":{}}`)
}

func TestToolResultsSentBack(t *testing.T) {
	api := providertest.NewOpenAI(t, ok("You are at the theatre; the clock is down."))
	p := newProvider(t, api, nil)
	_, err := p.Complete(t.Context(), botgw.Request{Messages: []botgw.Message{
		msg("user", "where am I and what time is it?"),
		{Role: botgw.RoleAssistant, Text: "Checking.", ToolCalls: []botgw.ToolCall{
			{ID: "call_abc", Name: "get_location", Arguments: `{"player":"p1"}`, Result: `{"place":"Harrogate Theatre"}`},
			{ID: "call_def", Name: "get_time", Arguments: `{}`, Error: "clock service down"},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := api.Calls()[0].Body.Messages
	if len(got) != 4 {
		t.Fatalf("sent %d messages, want user, assistant, tool, tool: %+v", len(got), got)
	}
	a := got[1]
	if a.Role != "assistant" || a.Content != "Checking." || len(a.ToolCalls) != 2 {
		t.Fatalf("assistant message = %+v", a)
	}
	for i, id := range []string{"call_abc", "call_def"} {
		if tc := a.ToolCalls[i]; tc.ID != id || tc.Type != "function" {
			t.Errorf("tool_calls[%d] = %+v, want id %s of type function", i, tc, id)
		}
	}
	if a.ToolCalls[0].Function.Name != "get_location" || a.ToolCalls[0].Function.Arguments != `{"player":"p1"}` {
		t.Errorf("tool_calls[0].function = %+v", a.ToolCalls[0].Function)
	}
	assertMessages(t, got[2:], []providertest.OpenAIMessage{
		{Role: "tool", ToolCallID: "call_abc", Content: `{"place":"Harrogate Theatre"}`},
		{Role: "tool", ToolCallID: "call_def", Content: `{"error":"clock service down"}`},
	})
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
		answer:    providertest.OpenAIError(401, "Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key"),
		want:      botgw.ProviderError{Status: 401, Code: "invalid_api_key"},
		retryable: false,
	}, {
		name:    "server error after the configured retries",
		retries: 1, wantCalls: 2,
		answer:    providertest.OpenAIError(500, "The server had an error while processing your request. Sorry about that!", "server_error", ""),
		want:      botgw.ProviderError{Status: 500, Code: "server_error"},
		retryable: true,
	}, {
		name:    "rate limit carries Retry-After",
		retries: -1, wantCalls: 1,
		header:    http.Header{"Retry-After": {"7"}},
		answer:    providertest.OpenAIError(429, "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.", "requests", "rate_limit_exceeded"),
		want:      botgw.ProviderError{Status: 429, Code: "rate_limit_exceeded", RetryAfter: 7 * time.Second},
		retryable: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := providertest.NewOpenAI(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
				for k, v := range tt.header {
					w.Header()[k] = v
				}
				tt.answer.Write(w)
			})
			p := newProvider(t, api, func(c *openai.Config) { c.MaxRetries = tt.retries })
			_, err := p.Complete(t.Context(), botgw.Request{Messages: []botgw.Message{msg("user", "hi")}})

			pe := asProviderError(t, err)
			if pe.Status != tt.want.Status || pe.Code != tt.want.Code || pe.RetryAfter != tt.want.RetryAfter {
				t.Errorf("error = status %d code %q retry-after %s, want %+v", pe.Status, pe.Code, pe.RetryAfter, tt.want)
			}
			if pe.Provider != "openai/gpt-4o-mini" || pe.Retryable() != tt.retryable {
				t.Errorf("provider %q retryable %v, want openai/gpt-4o-mini, %v", pe.Provider, pe.Retryable(), tt.retryable)
			}
			if n := len(api.Calls()); n != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", n, tt.wantCalls)
			}
		})
	}
}

func TestRateLimitThenSuccess(t *testing.T) {
	api := providertest.NewOpenAI(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 0 {
			w.Header().Set("Retry-After-Ms", "10")
			providertest.OpenAIError(429, "Rate limit reached for gpt-4o-mini.", "requests", "rate_limit_exceeded").Write(w)
			return
		}
		providertest.Completion("made it").Write(w)
	})
	p := newProvider(t, api, nil)
	reply, err := p.Complete(t.Context(), botgw.Request{Messages: []botgw.Message{msg("user", "hi")}})
	if err != nil || reply.Text != "made it" {
		t.Fatalf("reply = %+v, %v; want the answer of the retry", reply, err)
	}
	if n := len(api.Calls()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func TestAttemptTimeout(t *testing.T) {
	api := providertest.NewOpenAI(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	})
	p := newProvider(t, api, func(c *openai.Config) { c.Timeout = 50 * time.Millisecond; c.MaxRetries = -1 })
	_, err := p.Complete(t.Context(), botgw.Request{Messages: []botgw.Message{msg("user", "hi")}})
	pe := asProviderError(t, err)
	if pe.Status != 0 || !pe.Retryable() || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v (status %d), want a retryable status-0 timeout", err, pe.Status)
	}
}

// A model that stalls past the attempt timeout is asked again, as
// max_retries promises for timeouts, within the turn's deadline.
func TestAttemptTimeoutIsRetried(t *testing.T) {
	api := providertest.NewOpenAI(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 0 {
			<-r.Context().Done() // the first attempt never gets an answer
			return
		}
		providertest.Completion("second time lucky").Write(w)
	})
	p := newProvider(t, api, func(c *openai.Config) { c.Timeout = 200 * time.Millisecond; c.MaxRetries = 2 })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // the turn's deadline
	defer cancel()
	reply, err := p.Complete(ctx, botgw.Request{Messages: []botgw.Message{msg("user", "hi")}})
	if err != nil || reply.Text != "second time lucky" {
		t.Fatalf("reply = %+v, %v; want the answer of the retry after the timed-out attempt", reply, err)
	}
	if n := len(api.Calls()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func TestEnvironmentIsIgnored(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_ADMIN_KEY", "sk-admin-from-env")
	t.Setenv("OPENAI_ORG_ID", "org-from-env")
	api := providertest.NewOpenAI(t, ok("hi"))
	if _, err := newProvider(t, api, nil).Complete(t.Context(), botgw.Request{Messages: []botgw.Message{msg("user", "hi")}}); err != nil {
		t.Fatal(err)
	}
	h := api.Calls()[0].Header
	if h.Get("Authorization") != "Bearer sk-test" || h.Get("OpenAI-Organization") != "" {
		t.Errorf("Authorization %q, OpenAI-Organization %q: the environment leaked in",
			h.Get("Authorization"), h.Get("OpenAI-Organization"))
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []openai.Config{{}, {Model: "m", BaseURL: "localhost:11434"}} {
		if _, err := openai.New(cfg); err == nil {
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

func assertMessages(t *testing.T, got, want []providertest.OpenAIMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("sent %d messages %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Role != w.Role || g.Content != w.Content || g.ToolCallID != w.ToolCallID {
			t.Errorf("message %d = %+v, want %+v", i, g, w)
		}
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
