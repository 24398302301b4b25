package openai

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"

	"github.com/botgw/botgw"
)

// completion is the part of a Chat Completions response a turn uses. The
// SDK still sends the request, retries and maps error statuses; only the
// successful body is read here, into these few fields, with the
// encoding/json/v2 engine: the SDK's decoder builds its whole response
// model (every field, raw JSON kept for each) and cost a turn about as
// much CPU as the rest of the provider call.
type completion struct {
	Choices []struct {
		Message struct {
			Content   string `json:"content"`
			Refusal   string `json:"refusal"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// parseReply decodes a successful response body into the reply.
func (p *Provider) parseReply(body []byte) (botgw.Reply, error) {
	var res completion
	if err := json.Unmarshal(body, &res); err != nil {
		return botgw.Reply{}, &botgw.ProviderError{Provider: p.id, Code: "bad_response",
			Err: fmt.Errorf("decode response: %w", err)}
	}
	if len(res.Choices) == 0 {
		return botgw.Reply{}, &botgw.ProviderError{Provider: p.id, Code: "empty_response",
			Err: errors.New("response has no choices")}
	}
	msg := res.Choices[0].Message
	r := botgw.Reply{
		Text:     msg.Content,
		Provider: p.id,
		Usage: botgw.Usage{
			InputTokens:  int(res.Usage.PromptTokens),
			OutputTokens: int(res.Usage.CompletionTokens),
		},
	}
	if r.Text == "" {
		r.Text = msg.Refusal
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom tools are never offered
		}
		r.ToolCalls = append(r.ToolCalls, botgw.ToolCall{
			ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments,
		})
	}
	return r, nil
}
