package openai

import (
	"encoding/json"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/internal/vendor"
)

// messages translates the system prompt and the history into chat messages.
// An assistant message with tool calls becomes the assistant's tool-call
// message followed by one "tool" message per call.
func messages(system string, history []botgw.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	var out []sdk.ChatCompletionMessageParamUnion
	if system != "" {
		out = append(out, sdk.SystemMessage(system))
	}
	for i, m := range history {
		switch m.Role {
		case botgw.RoleUser:
			out = append(out, sdk.UserMessage(m.Text))
		case botgw.RoleEvent:
			out = append(out, sdk.UserMessage(vendor.EventPrefix+m.Text))
		case botgw.RoleSummary:
			out = append(out, sdk.UserMessage(vendor.SummaryPrefix+m.Text))
		case botgw.RoleAssistant:
			out = append(out, assistant(m)...)
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

func assistant(m botgw.Message) []sdk.ChatCompletionMessageParamUnion {
	if len(m.ToolCalls) == 0 {
		return []sdk.ChatCompletionMessageParamUnion{sdk.AssistantMessage(m.Text)}
	}
	var a sdk.ChatCompletionAssistantMessageParam
	if m.Text != "" {
		a.Content.OfString = sdk.String(m.Text)
	}
	results := make([]sdk.ChatCompletionMessageParamUnion, 0, len(m.ToolCalls))
	for _, tc := range m.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID:       tc.ID,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
			},
		})
		results = append(results, sdk.ToolMessage(toolResult(tc), tc.ID))
	}
	return append([]sdk.ChatCompletionMessageParamUnion{{OfAssistant: &a}}, results...)
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

// tools declares function tools; a tool without parameters takes an empty
// object.
func tools(specs []botgw.ToolSpec) ([]sdk.ChatCompletionToolUnionParam, error) {
	var out []sdk.ChatCompletionToolUnionParam
	for _, s := range specs {
		params := shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
		if len(s.Parameters) > 0 {
			params = nil
			if err := json.Unmarshal(s.Parameters, &params); err != nil {
				return nil, fmt.Errorf("tool %s parameters: %w", s.Name, err)
			}
		}
		def := shared.FunctionDefinitionParam{Name: s.Name, Parameters: params}
		if s.Description != "" {
			def.Description = sdk.String(s.Description)
		}
		out = append(out, sdk.ChatCompletionFunctionTool(def))
	}
	return out, nil
}
