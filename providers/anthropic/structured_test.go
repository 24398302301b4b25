package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/botgw/botgw/providers/anthropic"
	"github.com/botgw/botgw/providers/providertest"
)

// CompleteJSON forces a tool whose input is the answer, and returns that
// input as the reply's text.
func TestCompleteJSONForcesTheTool(t *testing.T) {
	api := providertest.NewAnthropic(t, providertest.Always(
		providertest.AnthropicToolUse("toolu_1", "verdict", `{"pass":true,"reason":"It hints."}`)))
	p, err := anthropic.New(anthropic.Config{BaseURL: api.URL, APIKey: "sk-ant-test", Model: "claude-haiku-4-5"})
	if err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"type": "object", "required": []string{"pass", "reason"},
		"properties": map[string]any{"pass": map[string]any{"type": "boolean"}, "reason": map[string]any{"type": "string"}}}
	r, err := p.CompleteJSON(t.Context(), hi(), "verdict", schema)
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != `{"pass":true,"reason":"It hints."}` || len(r.ToolCalls) != 0 {
		t.Errorf("reply: %+v", r)
	}
	var sent struct {
		ToolChoice struct{ Type, Name string } `json:"tool_choice"`
		Tools      []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Required []string `json:"required"`
			} `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(api.Calls()[0].Raw, &sent); err != nil {
		t.Fatal(err)
	}
	if sent.ToolChoice.Type != "tool" || sent.ToolChoice.Name != "verdict" || len(sent.Tools) != 1 ||
		sent.Tools[0].Name != "verdict" || len(sent.Tools[0].InputSchema.Required) != 2 {
		t.Errorf("request: %s", api.Calls()[0].Raw)
	}
}
