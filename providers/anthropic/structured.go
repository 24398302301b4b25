package anthropic

import (
	"context"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/botgw/botgw"
)

// CompleteJSON makes one call whose answer is a JSON object matching
// schema (an object schema): the model is made to call a tool named name
// whose input is that object (tool_choice forces it). The reply's Text is
// the tool's input as the model wrote it; the caller decodes and checks it.
func (p *Provider) CompleteJSON(ctx context.Context, req botgw.Request, name string, schema map[string]any) (botgw.Reply, error) {
	params, err := p.params(req)
	if err != nil {
		return botgw.Reply{}, fmt.Errorf("%s request: %w", p.id, err)
	}
	in := sdk.ToolInputSchemaParam{Properties: schema["properties"]}
	if req, ok := schema["required"].([]string); ok {
		in.Required = req
	}
	params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &sdk.ToolParam{Name: name, InputSchema: in}})
	params.ToolChoice = sdk.ToolChoiceParamOfTool(name)
	msg, err := p.messages.New(ctx, params)
	if err != nil {
		return botgw.Reply{}, p.cfg.ProviderError(ctx, p.id, err, failure(err))
	}
	r := p.reply(msg)
	r.Text = ""
	for _, c := range r.ToolCalls {
		if c.Name == name {
			r.Text = c.Arguments
		}
	}
	r.ToolCalls = nil
	return r, nil
}
