package providertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

// Messages is Anthropic's Messages API.
func Messages() Wire { return messagesWire{} }

type messagesWire struct{}

func (messagesWire) Start(t *testing.T, respond Respond) (string, func() []Sent) {
	api := NewAnthropic(t, respond)
	return api.URL, func() []Sent {
		var out []Sent
		for _, c := range api.Calls() {
			out = append(out, readMessages(c))
		}
		return out
	}
}

func (messagesWire) Text(text string, u Usage) Answer {
	return anthropicAnswer(fmt.Sprintf(`[{"type":"text","text":%s}]`, js(text)), "end_turn", u)
}

func (messagesWire) ToolUse(text string, calls ...botgw.ToolCall) Answer {
	var blocks []string
	if text != "" {
		blocks = append(blocks, fmt.Sprintf(`{"type":"text","text":%s}`, js(text)))
	}
	for _, c := range calls {
		blocks = append(blocks, fmt.Sprintf(`{"type":"tool_use","id":%s,"name":%s,"input":%s}`, js(c.ID), js(c.Name), c.Arguments))
	}
	return AnthropicMessageAnswer("["+strings.Join(blocks, ",")+"]", "tool_use")
}

// anthropicErrors are the API's error types and messages by status.
var anthropicErrors = map[int][2]string{
	400: {"invalid_request_error", "messages: text content blocks must be non-empty"},
	401: {"authentication_error", "invalid x-api-key"},
	429: {"rate_limit_error", "This request would exceed your organization's rate limit of 50 requests per minute."},
	500: {"api_error", "Internal server error"},
	529: {"overloaded_error", "Overloaded"},
}

func (messagesWire) Error(status int) (Answer, string, string) {
	e, ok := anthropicErrors[status]
	if !ok {
		e = anthropicErrors[500]
	}
	return AnthropicError(status, e[0], e[1]), e[0], e[1]
}

func (messagesWire) Busy() int { return 529 }

// readMessages reads a Messages request neutrally.
func readMessages(c Call[AnthropicRequest]) Sent {
	b := c.Body
	s := Sent{At: c.At, Header: c.Header, Key: c.Header.Get("X-Api-Key"), Model: b.Model,
		MaxTokens: b.MaxTokens, Temperature: b.Temperature}
	for _, blk := range b.System {
		s.System += blk.Text
	}
	for _, m := range b.Messages {
		for _, blk := range m.Content {
			s.Parts = append(s.Parts, blockPart(m.Role, blk))
		}
	}
	for _, t := range b.Tools {
		s.Tools = append(s.Tools, Tool{Name: t.Name, Description: t.Description, Parameters: Canonical(t.InputSchema)})
	}
	return s
}

func blockPart(role string, b AnthropicBlock) Part {
	switch b.Type {
	case "image":
		if b.Source == nil {
			return Part{Role: role, Image: "data:"}
		}
		return Part{Role: role, Image: "data:" + b.Source.MediaType + ";" + b.Source.Type + "," + b.Source.Data}
	case "tool_use":
		return Part{Role: role, CallID: b.ID, Name: b.Name, Args: compact(b.Input)}
	case "tool_result":
		var text []string
		for _, c := range b.Content {
			text = append(text, c.Text)
		}
		return Part{Role: "tool", CallID: b.ToolUseID, Text: strings.Join(text, "")}
	}
	return Part{Role: role, Text: b.Text}
}
