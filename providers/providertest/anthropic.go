package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// AnthropicRequest is a POST /v1/messages body, as the fake reads it.
type AnthropicRequest struct {
	Model       string             `json:"model"`
	MaxTokens   int                `json:"max_tokens"`
	Temperature *float64           `json:"temperature"`
	System      []AnthropicBlock   `json:"system"`
	Messages    []AnthropicMessage `json:"messages"`
	Tools       []AnthropicTool    `json:"tools"`
	ToolChoice  json.RawMessage    `json:"tool_choice"`
}

type AnthropicMessage struct {
	Role    string           `json:"role"`
	Content []AnthropicBlock `json:"content"`
}

// AnthropicBlock is any content block: text, image, tool_use or tool_result.
type AnthropicBlock struct {
	Type      string           `json:"type"`
	Text      string           `json:"text,omitempty"`
	ID        string           `json:"id,omitempty"`
	Name      string           `json:"name,omitempty"`
	Input     json.RawMessage  `json:"input,omitempty"`
	ToolUseID string           `json:"tool_use_id,omitempty"`
	IsError   *bool            `json:"is_error,omitempty"`
	Content   []AnthropicBlock `json:"content,omitempty"`
	Source    *AnthropicSource `json:"source,omitempty"` // an image block's
}

// AnthropicSource is an image block's source: {"type":"base64",
// "media_type","data"}.
type AnthropicSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type AnthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Anthropic is a fake Messages API at URL.
type Anthropic = Server[AnthropicRequest]

const requestID = "req_011CSHoEeqs5C35K2UUqR7Fy"

// NewAnthropic starts a Messages API answering with respond.
func NewAnthropic(t testing.TB, respond Respond) *Anthropic {
	return newServer(t, "/v1/messages", AnthropicError(http.StatusNotFound, "not_found_error", "Not found"), respond,
		decodeJSON[AnthropicRequest])
}

// AnthropicMessageAnswer is a Messages API answer; content is the JSON
// array of blocks.
func AnthropicMessageAnswer(content, stopReason string) Answer {
	return anthropicAnswer(content, stopReason, Usage{Input: 2195, Output: 503, Cached: 100})
}

// anthropicAnswer is a Messages API answer whose usage is u, written as
// the API writes it: input_tokens counts only the tokens after the last
// cache breakpoint, cache_read_input_tokens the cached ones.
func anthropicAnswer(content, stopReason string, u Usage) Answer {
	return Answer{Status: http.StatusOK, Header: map[string]string{"Request-Id": requestID},
		Body: fmt.Sprintf(`{"id":"msg_013Zva2CMHLNnXjNJJKqJ2EF","type":"message","role":"assistant",`+
			`"model":"claude-sonnet-4-5-20250929","content":%s,"stop_reason":%q,"stop_sequence":null,`+
			`"usage":{"input_tokens":%d,"output_tokens":%d,"cache_creation_input_tokens":0,`+
			`"cache_read_input_tokens":%d,"service_tier":"standard"}}`, content, stopReason, u.Input-u.Cached, u.Output, u.Cached)}
}

// AnthropicText is an answer with one text block.
func AnthropicText(text string) Answer {
	return AnthropicMessageAnswer(fmt.Sprintf(`[{"type":"text","text":%q}]`, text), "end_turn")
}

// AnthropicToolUse asks for one call {id, name, input JSON}.
func AnthropicToolUse(id, name, input string) Answer {
	return AnthropicMessageAnswer(fmt.Sprintf(`[{"type":"text","text":"Let me check."},{"type":"tool_use","id":%q,"name":%q,"input":%s}]`,
		id, name, input), "tool_use")
}

// AnthropicError is Anthropic's documented error answer.
func AnthropicError(status int, typ, message string) Answer {
	return Answer{Status: status, Header: map[string]string{"Request-Id": requestID},
		Body: fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q},"request_id":%q}`, typ, message, requestID)}
}
