package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/web"
	"github.com/botgw/botgw/convo"
)

// vendorCall is one request a fake LLM API received.
type vendorCall struct {
	At     time.Time
	Header http.Header
	Body   []byte
}

// answer is a scripted HTTP answer.
type answer struct {
	status int
	header map[string]string
	body   string
}

// vendorAPI is a local LLM API on one path (/v1/chat/completions or
// /v1/messages): call n gets script(n); other paths get the vendor's 404.
type vendorAPI struct {
	*httptest.Server
	mu    sync.Mutex
	calls []vendorCall
}

func newVendorAPI(t *testing.T, path string, script func(n int) answer) *vendorAPI {
	t.Helper()
	v := &vendorAPI{}
	v.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != path {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		b, _ := io.ReadAll(r.Body)
		v.mu.Lock()
		n := len(v.calls)
		v.calls = append(v.calls, vendorCall{At: time.Now(), Header: r.Header.Clone(), Body: b})
		v.mu.Unlock()
		a := script(n)
		w.Header().Set("Content-Type", "application/json")
		for k, val := range a.header {
			w.Header().Set(k, val)
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(v.Close)
	return v
}

func (v *vendorAPI) Calls() []vendorCall {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]vendorCall(nil), v.calls...)
}

// decode reads call n's body into out (a vendor request shape below).
func (v *vendorAPI) decode(t *testing.T, n int, out any) {
	t.Helper()
	calls := v.Calls()
	if n >= len(calls) {
		t.Fatalf("%d calls, want call %d", len(calls), n)
	}
	if err := json.Unmarshal(calls[n].Body, out); err != nil {
		t.Fatalf("call %d body %s: %v", n, calls[n].Body, err)
	}
}

// OpenAI Chat Completions: the request as the fake reads it, and answers.
type oaRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct{ Name, Arguments string }
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

func oaText(text string) answer {
	msg := fmt.Sprintf(`{"role":"assistant","content":%q,"refusal":null,"annotations":[]}`, text)
	return answer{200, nil, oaCompletion(msg, "stop")}
}

// oaTools asks for calls; each is {id, name, arguments JSON}.
func oaTools(calls ...[3]string) answer {
	var tc []map[string]any
	for _, c := range calls {
		tc = append(tc, map[string]any{"id": c[0], "type": "function",
			"function": map[string]string{"name": c[1], "arguments": c[2]}})
	}
	b, _ := json.Marshal(tc)
	msg := fmt.Sprintf(`{"role":"assistant","content":null,"refusal":null,"tool_calls":%s}`, b)
	return answer{200, nil, oaCompletion(msg, "tool_calls")}
}

func oaCompletion(msg, finish string) string {
	return fmt.Sprintf(`{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion","created":1741570283,`+
		`"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":%s,"logprobs":null,"finish_reason":%q}],`+
		`"usage":{"prompt_tokens":57,"completion_tokens":9,"total_tokens":66},"system_fingerprint":"fp_06737a9306"}`, msg, finish)
}

func oaError(status int) answer {
	bodies := map[int]string{
		429: `{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
		500: `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
		503: `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`,
	}
	return answer{status, nil, bodies[status]}
}

// Anthropic Messages: the request as the fake reads it, and answers.
type anRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string    `json:"role"`
		Content []anBlock `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
}

type anBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   []anBlock       `json:"content"`
}

func anText(text string) answer {
	return anMessage(fmt.Sprintf(`[{"type":"text","text":%q}]`, text), "end_turn")
}

// anTool asks for one call {id, name, input JSON}.
func anTool(id, name, input string) answer {
	return anMessage(fmt.Sprintf(`[{"type":"text","text":"Let me check."},{"type":"tool_use","id":%q,"name":%q,"input":%s}]`,
		id, name, input), "tool_use")
}

func anMessage(content, stop string) answer {
	return answer{200, map[string]string{"Request-Id": "req_011CSHoEeqs5C35K2UUqR7Fy"},
		fmt.Sprintf(`{"id":"msg_013Zva2CMHLNnXjNJJKqJ2EF","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001",`+
			`"content":%s,"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":210,"output_tokens":30,`+
			`"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"service_tier":"standard"}}`, content, stop)}
}

func anOverloaded() answer {
	return answer{529, map[string]string{"Request-Id": "req_011CSHoEeqs5C35K2UUqR7Fy"},
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`}
}

// gameAPI is the game's backend behind the tools.
type gameAPI struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []vendorCall
	path []string
}

func newGameAPI(t *testing.T, respond func(path string) answer) *gameAPI {
	t.Helper()
	g := &gameAPI{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		g.mu.Lock()
		g.reqs = append(g.reqs, vendorCall{At: time.Now(), Header: r.Header.Clone(), Body: b})
		g.path = append(g.path, r.Method+" "+r.URL.Path)
		g.mu.Unlock()
		a := respond(r.URL.Path)
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *gameAPI) requests() ([]vendorCall, []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]vendorCall(nil), g.reqs...), append([]string(nil), g.path...)
}

// gameTools declares get_score and list_teams on the game's backend.
func gameTools(base string) []convo.ToolConfig {
	return []convo.ToolConfig{
		{Name: "get_score", Description: "The score of a team.", URL: base + "/api/score",
			Parameters: map[string]any{"type": "object", "required": []any{"team"},
				"properties": map[string]any{"team": map[string]any{"type": "string"}}},
			Headers: map[string]string{"Authorization": "Bearer game-secret"}},
		{Name: "list_teams", Description: "The teams playing now.", URL: base + "/api/teams",
			Headers: map[string]string{"Authorization": "Bearer game-secret"}},
	}
}

// llmConfig is a web-channel gateway on the given provider.
func llmConfig(pc ProviderConfig) Config {
	cfg := DefaultConfig()
	cfg.Channels.Web = &web.Config{ReplyTimeout: 30 * time.Second}
	cfg.Compaction.Strategy = "none"
	cfg.Provider = pc
	return cfg
}

func openAIAt(v *vendorAPI, retries int) ProviderConfig {
	return ProviderConfig{Kind: "openai", BaseURL: v.URL + "/v1", APIKey: "sk-test", Model: "gpt-4o-mini", MaxRetries: &retries}
}

func anthropicAt(v *vendorAPI, retries int) ProviderConfig {
	return ProviderConfig{Kind: "anthropic", BaseURL: v.URL, APIKey: "sk-ant-test", Model: "claude-haiku-4-5", MaxRetries: &retries}
}

// chat sends one web message and returns the reply.
func chat(t *testing.T, base, chatKey, text string) string {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"chat": chatKey, "text": text})
	status, v := postJSON(t, base+"/v1/chat", string(b))
	reply, _ := v["reply"].(string)
	if status != 200 || reply == "" {
		t.Fatalf("chat %q: %d %v", text, status, v)
	}
	return reply
}
