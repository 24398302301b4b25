package openai_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/botgw/botgw/providers/openai"
)

// The wire shapes of POST /chat/completions, as the fake server decodes them.
type chatRequest struct {
	Model               string        `json:"model"`
	MaxTokens           *int          `json:"max_tokens"`
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
	Temperature         *float64      `json:"temperature"`
	Messages            []chatMessage `json:"messages"`
	Tools               []chatTool    `json:"tools"`
}

type chatMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls"`
	ToolCallID string         `json:"tool_call_id"`
}

type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type apiCall struct {
	Header http.Header
	Body   chatRequest
}

// fakeOpenAI is a local Chat Completions server under /v1. respond answers
// attempt n (0-based).
type fakeOpenAI struct {
	*httptest.Server
	mu    sync.Mutex
	calls []apiCall
}

func newFakeOpenAI(t testing.TB, respond func(n int, w http.ResponseWriter, r *http.Request)) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			writeJSON(w, http.StatusNotFound, apiError("Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error", ""))
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body chatRequest
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body %s: %v", raw, err)
		}
		f.mu.Lock()
		n := len(f.calls)
		f.calls = append(f.calls, apiCall{Header: r.Header.Clone(), Body: body})
		f.mu.Unlock()
		respond(n, w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeOpenAI) Calls() []apiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apiCall(nil), f.calls...)
}

func (f *fakeOpenAI) provider(t testing.TB, edit func(*openai.Config)) *openai.Provider {
	t.Helper()
	cfg := openai.Config{BaseURL: f.URL + "/v1", APIKey: "sk-test", Model: "gpt-4o-mini"}
	if edit != nil {
		edit(&cfg)
	}
	p, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// apiError is OpenAI's documented error body.
func apiError(message, typ, code string) string {
	c := "null"
	if code != "" {
		c = fmt.Sprintf("%q", code)
	}
	return fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":null,"code":%s}}`, message, typ, c)
}

// completion is a chat.completion body with one choice. toolCalls is the
// JSON array of the message's tool_calls, or "".
func completion(content, toolCalls string) string {
	msg := fmt.Sprintf(`{"role":"assistant","content":%q,"refusal":null,"annotations":[]}`, content)
	finish := "stop"
	if toolCalls != "" {
		msg = fmt.Sprintf(`{"role":"assistant","content":null,"refusal":null,"tool_calls":%s}`, toolCalls)
		finish = "tool_calls"
	}
	return fmt.Sprintf(`{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion",`+
		`"created":1741570283,"model":"gpt-4o-mini-2024-07-18",`+
		`"choices":[{"index":0,"message":%s,"logprobs":null,"finish_reason":%q}],`+
		`"usage":{"prompt_tokens":57,"completion_tokens":9,"total_tokens":66,`+
		`"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},`+
		`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0}},`+
		`"service_tier":"default","system_fingerprint":"fp_06737a9306"}`, msg, finish)
}
