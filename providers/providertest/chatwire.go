package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/botgw/botgw"
)

// ChatCompletions is api.openai.com's Chat Completions API.
func ChatCompletions() Wire { return chatWire{} }

// Compatible is an OpenAI-compatible server answering as Ollama's /v1
// does: usage without details, content "" beside tool calls, and errors
// typed by their status with a null code.
func Compatible() Wire { return chatWire{ollama: true} }

type chatWire struct{ ollama bool }

func (w chatWire) Start(t *testing.T, respond Respond) (string, func() []Sent) {
	api := NewOpenAI(t, respond)
	return api.URL + "/v1", func() []Sent {
		var out []Sent
		for _, c := range api.Calls() {
			out = append(out, readChat(c))
		}
		return out
	}
}

func (w chatWire) Text(text string, u Usage) Answer {
	if w.ollama {
		return ollamaCompletion(fmt.Sprintf(`{"role":"assistant","content":%s}`, js(text)), "stop", u)
	}
	return completionWith(fmt.Sprintf(`{"role":"assistant","content":%s,"refusal":null,"annotations":[]}`, js(text)), "stop", u)
}

func (w chatWire) ToolUse(text string, calls ...botgw.ToolCall) Answer {
	var tc []map[string]any
	for i, c := range calls {
		call := map[string]any{"id": c.ID, "type": "function",
			"function": map[string]string{"name": c.Name, "arguments": c.Arguments}}
		if w.ollama {
			call["index"] = i
		}
		tc = append(tc, call)
	}
	b, _ := json.Marshal(tc) // strings and numbers always encode
	if w.ollama {
		return ollamaCompletion(fmt.Sprintf(`{"role":"assistant","content":%s,"tool_calls":%s}`, js(text), b), "tool_calls", Usage{Input: 80, Output: 12})
	}
	content := "null"
	if text != "" {
		content = js(text)
	}
	return completion(fmt.Sprintf(`{"role":"assistant","content":%s,"refusal":null,"tool_calls":%s}`, content, b), "tool_calls")
}

// ollamaCompletion is a chat.completion answer as Ollama writes it.
func ollamaCompletion(msg, finish string, u Usage) Answer {
	return Answer{Status: http.StatusOK, Body: fmt.Sprintf(`{"id":"chatcmpl-611","object":"chat.completion",`+
		`"created":1741570283,"model":"llama3.2","system_fingerprint":"fp_ollama",`+
		`"choices":[{"index":0,"message":%s,"finish_reason":%q}],`+
		`"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		msg, finish, u.Input, u.Output, u.Input+u.Output)}
}

// openAIErrors are api.openai.com's answers: message, type and code.
var openAIErrors = map[int][3]string{
	400: {"Invalid 'messages[1].content': string too long. Expected a string with maximum length 1048576, but got a string with length 1048577 instead.",
		"invalid_request_error", "string_above_max_length"},
	401: {"Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.",
		"invalid_request_error", "invalid_api_key"},
	429: {"Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1.",
		"requests", "rate_limit_exceeded"},
	500: {"The server had an error while processing your request. Sorry about that!", "server_error", ""},
	503: {"The engine is currently overloaded, please try again later", "server_error", ""},
}

// ollamaErrors are Ollama's messages; its error type follows the status.
var ollamaErrors = map[int]string{
	400: "invalid message content type: <nil>",
	401: "unauthorized",
	429: "too many requests",
	500: "llama runner process has terminated: exit status 2",
	503: "server busy, please try again.  maximum pending requests exceeded",
}

func (w chatWire) Error(status int) (Answer, string, string) {
	if w.ollama {
		typ := "api_error"
		if status == http.StatusBadRequest {
			typ = "invalid_request_error"
		}
		msg := ollamaErrors[status]
		return Answer{Status: status, Body: fmt.Sprintf(`{"error":{"message":%s,"type":%q,"param":null,"code":null}}`, js(msg), typ)}, typ, msg
	}
	e, ok := openAIErrors[status]
	if !ok {
		e = openAIErrors[500]
	}
	code := e[2]
	if code == "" {
		code = e[1]
	}
	return OpenAIError(status, e[0], e[1], e[2]), code, e[0]
}

func (w chatWire) Busy() int { return http.StatusServiceUnavailable }

// readChat reads a Chat Completions request neutrally.
func readChat(c Call[OpenAIRequest]) Sent {
	b := c.Body
	s := Sent{At: c.At, Header: c.Header, Key: bearer(c.Header), Model: b.Model, Temperature: b.Temperature}
	if b.MaxCompletionTokens != nil {
		s.MaxTokens = *b.MaxCompletionTokens
	} else if b.MaxTokens != nil {
		s.MaxTokens = *b.MaxTokens
	}
	for _, m := range b.Messages {
		if m.Role == "system" {
			s.System += m.Text()
			continue
		}
		s.Parts = append(s.Parts, chatParts(m)...)
	}
	for _, t := range b.Tools {
		s.Tools = append(s.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description,
			Parameters: Canonical(t.Function.Parameters)})
	}
	return s
}

// chatParts reads one message: its content (a string or an array of text
// and image_url parts), then its tool calls.
func chatParts(m OpenAIMessage) []Part {
	if m.Role == "tool" {
		return []Part{{Role: "tool", CallID: m.ToolCallID, Text: m.Text()}}
	}
	var out []Part
	switch c := m.Content.(type) {
	case string:
		out = append(out, Part{Role: m.Role, Text: c})
	case []any:
		for _, p := range c {
			out = append(out, contentPart(m.Role, p))
		}
	}
	for _, tc := range m.ToolCalls {
		out = append(out, Part{Role: m.Role, CallID: tc.ID, Name: tc.Function.Name, Args: compact([]byte(tc.Function.Arguments))})
	}
	return out
}

func contentPart(role string, p any) Part {
	m, _ := p.(map[string]any)
	if img, ok := m["image_url"].(map[string]any); ok {
		url, _ := img["url"].(string)
		return Part{Role: role, Image: url}
	}
	text, _ := m["text"].(string)
	return Part{Role: role, Text: text}
}

// js is s as a JSON string.
func js(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}
