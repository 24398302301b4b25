package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// OpenAIRequest is a POST /v1/chat/completions body, as the fake reads it.
type OpenAIRequest struct {
	Model               string          `json:"model"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	Messages            []OpenAIMessage `json:"messages"`
	Tools               []OpenAITool    `json:"tools"`
	ResponseFormat      json.RawMessage `json:"response_format"`
}

// OpenAIMessage is one message of a request; Content is a string or an
// array of parts, as the client sent it.
type OpenAIMessage struct {
	Role       string           `json:"role"`
	Content    any              `json:"content"`
	ToolCalls  []OpenAIToolCall `json:"tool_calls"`
	ToolCallID string           `json:"tool_call_id"`
}

// Text is the message's content as text.
func (m OpenAIMessage) Text() string {
	if s, ok := m.Content.(string); ok {
		return s
	}
	b, _ := json.Marshal(m.Content)
	return string(b)
}

type OpenAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type OpenAITool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// OpenAI is a fake Chat Completions server at <URL>/v1.
type OpenAI = Server[OpenAIRequest]

// NewOpenAI starts a Chat Completions server answering with respond.
func NewOpenAI(t testing.TB, respond Respond) *OpenAI {
	return newServer(t, "/v1/chat/completions",
		OpenAIError(http.StatusNotFound, "Invalid URL", "invalid_request_error", ""), respond, decodeJSON[OpenAIRequest])
}

// Echo answers every completion with "You said: <the last message>".
func Echo() Respond {
	return func(_ int, w http.ResponseWriter, r *http.Request) {
		var body OpenAIRequest
		_ = json.NewDecoder(r.Body).Decode(&body)
		last := ""
		if n := len(body.Messages); n > 0 {
			last = body.Messages[n-1].Text()
		}
		Completion("You said: " + last).Write(w)
	}
}

// Completion is a chat.completion answer with one text choice.
func Completion(text string) Answer {
	msg := fmt.Sprintf(`{"role":"assistant","content":%q,"refusal":null,"annotations":[]}`, text)
	return completion(msg, "stop")
}

// ToolCalls is a chat.completion asking for calls, each {id, name,
// arguments JSON}.
func ToolCalls(calls ...[3]string) Answer {
	var tc []map[string]any
	for _, c := range calls {
		tc = append(tc, map[string]any{"id": c[0], "type": "function",
			"function": map[string]string{"name": c[1], "arguments": c[2]}})
	}
	b, _ := json.Marshal(tc)
	return completion(fmt.Sprintf(`{"role":"assistant","content":null,"refusal":null,"tool_calls":%s}`, b), "tool_calls")
}

func completion(msg, finish string) Answer {
	return completionWith(msg, finish, Usage{Input: 57, Output: 9})
}

// completionWith is a chat.completion answer as api.openai.com writes
// it: prompt_tokens counts the cached tokens too.
func completionWith(msg, finish string, u Usage) Answer {
	return Answer{Status: http.StatusOK, Body: fmt.Sprintf(`{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion",`+
		`"created":1741570283,"model":"gpt-4o-mini-2024-07-18",`+
		`"choices":[{"index":0,"message":%s,"logprobs":null,"finish_reason":%q}],`+
		`"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,`+
		`"prompt_tokens_details":{"cached_tokens":%d,"audio_tokens":0},`+
		`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0}},`+
		`"service_tier":"default","system_fingerprint":"fp_06737a9306"}`,
		msg, finish, u.Input, u.Output, u.Input+u.Output, u.Cached)}
}

// OpenAIError is OpenAI's documented error answer.
func OpenAIError(status int, message, typ, code string) Answer {
	c := "null"
	if code != "" {
		c = fmt.Sprintf("%q", code)
	}
	return Answer{Status: status, Body: fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":null,"code":%s}}`, message, typ, c)}
}

// OpenAIStatus is the error OpenAI answers with status: 401 a wrong key,
// 429 a rate limit, 500 and 503 server trouble.
func OpenAIStatus(status int) Answer {
	switch status {
	case http.StatusUnauthorized:
		return OpenAIError(status, "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key")
	case http.StatusTooManyRequests:
		return OpenAIError(status, "Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1.", "requests", "rate_limit_exceeded")
	case http.StatusServiceUnavailable:
		return OpenAIError(status, "The engine is currently overloaded, please try again later", "server_error", "")
	}
	return OpenAIError(status, "The server had an error while processing your request. Sorry about that!", "server_error", "")
}
