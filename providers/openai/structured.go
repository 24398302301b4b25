package openai

import (
	"context"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/botgw/botgw"
)

// CompleteJSON makes one call whose answer is a JSON object matching
// schema (an object schema with every property required and no others, as
// strict Structured Outputs need): the request carries response_format
// json_schema named name. The reply's Text is the JSON as the model wrote
// it; the caller decodes and checks it.
func (p *Provider) CompleteJSON(ctx context.Context, req botgw.Request, name string, schema map[string]any) (botgw.Reply, error) {
	r, err := p.request(req)
	if err != nil {
		return botgw.Reply{}, fmt.Errorf("%s request: %w", p.id, err)
	}
	r.ResponseFormat = &shared.ResponseFormatJSONSchemaParam{JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
		Name: name, Strict: sdk.Bool(true), Schema: schema}}
	return p.send(ctx, r)
}
