package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/internal/wire"
)

const (
	// placeholder opens a history that starts with the assistant (after
	// compaction): the API wants the user to speak first.
	placeholder = "[Conversation continues]"
)

// conversation is a list of API messages that merges consecutive blocks of
// one role into one message, as the API wants roles to alternate.
type conversation []sdk.MessageParam

func (c *conversation) add(role sdk.MessageParamRole, blocks ...sdk.ContentBlockParamUnion) {
	if len(blocks) == 0 {
		return
	}
	if n := len(*c); n > 0 && (*c)[n-1].Role == role {
		(*c)[n-1].Content = append((*c)[n-1].Content, blocks...)
		return
	}
	*c = append(*c, sdk.MessageParam{Role: role, Content: blocks})
}

// messages translates the history. An assistant message with tool calls
// becomes tool_use blocks followed by a user message of tool_result blocks.
func messages(history []botgw.Message) ([]sdk.MessageParam, error) {
	const user, assistant = sdk.MessageParamRoleUser, sdk.MessageParamRoleAssistant
	var c conversation
	for i, m := range history {
		switch m.Role {
		case botgw.RoleUser:
			c.add(user, append(images(m.Images), text(m.Text)...)...)
		case botgw.RoleEvent:
			c.add(user, text(wire.EventPrefix+m.Text)...)
		case botgw.RoleSummary:
			c.add(user, text(wire.SummaryPrefix+m.Text)...)
		case botgw.RoleAssistant:
			c.add(assistant, toolUses(m)...)
			c.add(user, toolResults(m.ToolCalls)...)
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	if len(c) > 0 && c[0].Role == assistant {
		c = append(conversation{sdk.NewUserMessage(sdk.NewTextBlock(placeholder))}, c...)
	}
	return c, nil
}

// text is one text block, or none for blank text (the API rejects empty
// text blocks).
func text(s string) []sdk.ContentBlockParamUnion {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []sdk.ContentBlockParamUnion{sdk.NewTextBlock(s)}
}

// images are the turn's photos as base64 image blocks, which the API
// wants before the text about them.
func images(imgs []botgw.Image) []sdk.ContentBlockParamUnion {
	var blocks []sdk.ContentBlockParamUnion
	for _, img := range imgs {
		blocks = append(blocks, sdk.NewImageBlockBase64(img.MIME, base64.StdEncoding.EncodeToString(img.Data)))
	}
	return blocks
}

func toolUses(m botgw.Message) []sdk.ContentBlockParamUnion {
	blocks := text(m.Text)
	for _, tc := range m.ToolCalls {
		blocks = append(blocks, sdk.NewToolUseBlock(tc.ID, toolInput(tc.Arguments), tc.Name))
	}
	return blocks
}

// toolInput is the call's arguments as the JSON object the API requires.
func toolInput(args string) json.RawMessage {
	raw := bytes.TrimSpace([]byte(args))
	if !json.Valid(raw) || !bytes.HasPrefix(raw, []byte("{")) {
		return json.RawMessage(`{}`)
	}
	return raw
}

// toolResults are the outcomes of calls: the result, or {"error": "..."}
// with is_error set.
func toolResults(calls []botgw.ToolCall) []sdk.ContentBlockParamUnion {
	var blocks []sdk.ContentBlockParamUnion
	for _, tc := range calls {
		b := sdk.ToolResultBlockParam{ToolUseID: tc.ID}
		content := tc.Result
		if tc.Error != "" {
			e, _ := json.Marshal(map[string]string{"error": tc.Error}) // cannot fail for a string map
			content = string(e)
			b.IsError = sdk.Bool(true)
		}
		if content != "" {
			b.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: content}}}
		}
		blocks = append(blocks, sdk.ContentBlockParamUnion{OfToolResult: &b})
	}
	return blocks
}

// tools declares custom tools; a tool without parameters takes an empty
// object.
func tools(specs []botgw.ToolSpec) ([]sdk.ToolUnionParam, error) {
	var out []sdk.ToolUnionParam
	for _, s := range specs {
		schema, err := inputSchema(s.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %s parameters: %w", s.Name, err)
		}
		t := sdk.ToolParam{Name: s.Name, InputSchema: schema}
		if s.Description != "" {
			t.Description = sdk.String(s.Description)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: &t})
	}
	return out, nil
}

// inputSchema maps a JSON Schema object onto the SDK's type; keywords other
// than type and properties ride along as extra fields.
func inputSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	schema := sdk.ToolInputSchemaParam{Properties: map[string]any{}}
	if len(raw) == 0 {
		return schema, nil
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		return schema, err
	}
	if p, ok := fields["properties"]; ok {
		schema.Properties = p
	}
	delete(fields, "type")
	delete(fields, "properties")
	schema.ExtraFields = fields
	return schema, nil
}

// usedTools declares, with an open schema, each tool the history called.
func usedTools(history []botgw.Message) []sdk.ToolUnionParam {
	var specs []botgw.ToolSpec
	seen := map[string]bool{}
	for _, m := range history {
		for _, tc := range m.ToolCalls {
			if !seen[tc.Name] {
				seen[tc.Name] = true
				specs = append(specs, botgw.ToolSpec{Name: tc.Name})
			}
		}
	}
	out, _ := tools(specs) // no parameters to parse: cannot fail
	return out
}
