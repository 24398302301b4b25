package openai

import (
	"encoding/json"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/openai/openai-go/v3/shared"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/internal/wire"
)

// request is the Chat Completions request body. It is encoded here, with
// the encoding/json/v2 engine, and handed to the SDK as bytes: the SDK's
// reflective parameter encoder cost a turn more CPU than the rest of the
// request. The shapes are the API's (and what the SDK's params encode to).
type request struct {
	Model               string    `json:"model"`
	Messages            []message `json:"messages"`
	Tools               []tool    `json:"tools,omitempty"`
	Temperature         *float64  `json:"temperature,omitempty"`
	MaxTokens           int64     `json:"max_tokens,omitzero"`
	MaxCompletionTokens int64     `json:"max_completion_tokens,omitzero"`
	// ResponseFormat asks for JSON matching a schema (CompleteJSON).
	ResponseFormat *shared.ResponseFormatJSONSchemaParam `json:"response_format,omitempty"`
}

// message is one chat message; Content is nil only for an assistant
// message that holds nothing but tool calls.
type message struct {
	Role       string     `json:"role"`
	Content    content    `json:"content,omitzero"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type tool struct {
	Type     string   `json:"type"`
	Function function `json:"function"`
}

type function struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  jsontext.Value `json:"parameters"`
}

// messages translates the system prompt and the history into chat messages.
// An assistant message with tool calls becomes the assistant's tool-call
// message followed by one "tool" message per call.
func messages(system string, history []botgw.Message) ([]message, error) {
	out := make([]message, 0, len(history)+1)
	if system != "" {
		out = append(out, message{Role: "system", Content: text(&system)})
	}
	for i := range history {
		m := &history[i]
		switch m.Role {
		case botgw.RoleUser:
			out = append(out, userMessage(m))
		case botgw.RoleEvent:
			out = append(out, prefixed(wire.EventPrefix, m.Text))
		case botgw.RoleSummary:
			out = append(out, prefixed(wire.SummaryPrefix, m.Text))
		case botgw.RoleAssistant:
			out = appendAssistant(out, m)
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

func prefixed(prefix, s string) message {
	s = prefix + s
	return message{Role: "user", Content: text(&s)}
}

// appendAssistant appends an assistant message: with tool calls, the
// assistant's tool-call message and then one "tool" message per call.
func appendAssistant(out []message, m *botgw.Message) []message {
	if len(m.ToolCalls) == 0 {
		return append(out, message{Role: "assistant", Content: text(&m.Text)})
	}
	a := message{Role: "assistant", ToolCalls: make([]toolCall, 0, len(m.ToolCalls))}
	if m.Text != "" {
		a.Content = text(&m.Text)
	}
	for _, tc := range m.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, toolCall{ID: tc.ID, Type: "function",
			Function: functionCall{Name: tc.Name, Arguments: tc.Arguments}})
	}
	out = append(out, a)
	for _, tc := range m.ToolCalls {
		result := toolResult(tc)
		out = append(out, message{Role: "tool", Content: text(&result), ToolCallID: tc.ID})
	}
	return out
}

// toolResult is what the model sees of a call: its result, or
// {"error": "..."} when it failed.
func toolResult(tc botgw.ToolCall) string {
	if tc.Error == "" {
		return tc.Result
	}
	b, _ := json.Marshal(map[string]string{"error": tc.Error}) // cannot fail for a string map
	return string(b)
}

// emptyParameters is the schema of a tool that takes no arguments.
var emptyParameters = jsontext.Value(`{"type":"object","properties":{}}`)

// tools declares function tools; a tool without parameters takes an empty
// object.
func tools(specs []botgw.ToolSpec) ([]tool, error) {
	var out []tool
	for _, s := range specs {
		params := emptyParameters
		if len(s.Parameters) > 0 {
			params = jsontext.Value(s.Parameters)
			if !json.Valid(params) {
				return nil, fmt.Errorf("tool %s parameters: not valid JSON", s.Name)
			}
		}
		out = append(out, tool{Type: "function",
			Function: function{Name: s.Name, Description: s.Description, Parameters: params}})
	}
	return out, nil
}
