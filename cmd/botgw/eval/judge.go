package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/botgw/botgw"
)

// Judge is a model that answers with JSON matching a schema
// (providers/openai and providers/anthropic CompleteJSON).
type Judge interface {
	CompleteJSON(ctx context.Context, req botgw.Request, name string, schema map[string]any) (botgw.Reply, error)
}

// verdictSchema is the judge's answer: {"pass": bool, "reason": string}.
var verdictSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"pass":   map[string]any{"type": "boolean", "description": "whether the reply meets the rubric"},
		"reason": map[string]any{"type": "string", "description": "one or two sentences: why"},
	},
	"required":             []string{"pass", "reason"},
	"additionalProperties": false,
}

const judgeSystem = `You grade one reply of a chat assistant against a rubric.
Read the conversation so far and the reply, decide whether the reply meets the rubric, and answer only with JSON: {"pass": true or false, "reason": "why, in one or two sentences"}.`

// judge asks the judge model whether reply meets rubric.
func (r *Runner) judge(ctx context.Context, rubric string, history []turnLine, reply string) (bool, string, error) {
	if r.Judge == nil {
		return false, "", errors.New("no judge model (eval.judge)")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Rubric: %s\n\nConversation so far:\n", rubric)
	for _, l := range history {
		fmt.Fprintf(&b, "%s: %s\n", l.Who, l.Text)
	}
	fmt.Fprintf(&b, "\nReply to grade:\n%s\n", reply)
	res, err := r.Judge.CompleteJSON(ctx, botgw.Request{System: judgeSystem,
		Messages: []botgw.Message{{Role: botgw.RoleUser, Text: b.String()}}}, "verdict", verdictSchema)
	if err != nil {
		return false, "", err
	}
	return parseVerdict(res.Text)
}

// parseVerdict reads the judge's answer strictly.
func parseVerdict(text string) (bool, string, error) {
	var v struct {
		Pass   *bool   `json:"pass"`
		Reason *string `json:"reason"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(strings.TrimSpace(text))))
	if err := dec.Decode(&v); err != nil || v.Pass == nil || v.Reason == nil || dec.More() {
		return false, "", fmt.Errorf(`the answer is not JSON {"pass": bool, "reason": string}: %s`, short(text, 200))
	}
	return *v.Pass, *v.Reason, nil
}

// short quotes s cut to n bytes.
func short(s string, n int) string {
	if len(s) > n {
		return fmt.Sprintf("%q…", s[:n])
	}
	return fmt.Sprintf("%q", s)
}
