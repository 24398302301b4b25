package anthropic_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/botgw/botgw/providers/anthropic"
)

// The wire shapes of POST /v1/messages, as the fake server decodes them.
type messagesRequest struct {
	Model       string          `json:"model"`
	MaxTokens   int             `json:"max_tokens"`
	Temperature *float64        `json:"temperature"`
	System      []block         `json:"system"`
	Messages    []apiMessage    `json:"messages"`
	Tools       []apiTool       `json:"tools"`
	ToolChoice  json.RawMessage `json:"tool_choice"`
}

type apiMessage struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is any content block: text, tool_use or tool_result.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	IsError   *bool           `json:"is_error,omitempty"`
	Content   []block         `json:"content,omitempty"`
}

type apiTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type apiCall struct {
	Header http.Header
	Body   messagesRequest
}

// fakeAnthropic is a local Messages API. respond answers attempt n
// (0-based).
type fakeAnthropic struct {
	*httptest.Server
	mu    sync.Mutex
	calls []apiCall
}

func newFakeAnthropic(t *testing.T, respond func(n int, w http.ResponseWriter, r *http.Request)) *fakeAnthropic {
	t.Helper()
	f := &fakeAnthropic{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			writeJSON(w, http.StatusNotFound, apiError("not_found_error", "Not found"))
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body messagesRequest
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

func (f *fakeAnthropic) Calls() []apiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apiCall(nil), f.calls...)
}

func (f *fakeAnthropic) provider(t *testing.T, edit func(*anthropic.Config)) *anthropic.Provider {
	t.Helper()
	cfg := anthropic.Config{BaseURL: f.URL, APIKey: "sk-ant-test", Model: "claude-sonnet-4-5"}
	if edit != nil {
		edit(&cfg)
	}
	p, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", "req_011CSHoEeqs5C35K2UUqR7Fy")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// apiError is Anthropic's documented error body.
func apiError(typ, message string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`, typ, message)
}

// message is a Messages API response; content is the JSON array of blocks.
func message(content, stopReason string) string {
	return fmt.Sprintf(`{"id":"msg_013Zva2CMHLNnXjNJJKqJ2EF","type":"message","role":"assistant",`+
		`"model":"claude-sonnet-4-5-20250929","content":%s,"stop_reason":%q,"stop_sequence":null,`+
		`"usage":{"input_tokens":2095,"output_tokens":503,"cache_creation_input_tokens":0,`+
		`"cache_read_input_tokens":100,"service_tier":"standard"}}`, content, stopReason)
}

func textMessage(text string) string {
	return message(fmt.Sprintf(`[{"type":"text","text":%q}]`, text), "end_turn")
}
