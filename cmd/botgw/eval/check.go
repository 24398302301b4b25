package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// ExpectResult is one expectation's outcome: in one run, or over every
// run with -repeat (Passes of Runs).
type ExpectResult struct {
	Expect string  `json:"expect"`
	Line   int     `json:"line"`
	Pass   bool    `json:"pass"`
	Reason string  `json:"reason,omitempty"`
	Passes int     `json:"passes"`
	Runs   int     `json:"runs"`
	Rate   float64 `json:"pass_rate"`
}

// check judges one expectation on a step's answer.
func (r *Runner) check(ctx context.Context, s *session, e Expect, a answer) ExpectResult {
	res := ExpectResult{Expect: e.String(), Line: e.Line}
	res.Pass, res.Reason = r.verdict(ctx, s, e, a)
	return res
}

func (r *Runner) verdict(ctx context.Context, s *session, e Expect, a answer) (bool, string) {
	reply := strings.ToLower(a.Text)
	switch e.Kind {
	case ExpectContains:
		return strings.Contains(reply, strings.ToLower(e.Text)), fmt.Sprintf("the reply does not contain %q", e.Text)
	case ExpectNotContains:
		return !strings.Contains(reply, strings.ToLower(e.Text)), fmt.Sprintf("the reply contains %q", e.Text)
	case ExpectMatches:
		return e.Re.MatchString(a.Text), fmt.Sprintf("the reply does not match /%s/", e.Text)
	case ExpectToolCalled:
		return toolCalled(e, a)
	case ExpectChoices:
		var missing []string
		for _, want := range e.Choices {
			if !slices.ContainsFunc(a.Offer.Choices, func(c string) bool { return strings.EqualFold(c, want) }) {
				missing = append(missing, want)
			}
		}
		return len(missing) == 0, fmt.Sprintf("the reply offered %s, not %s", compactJSON(nonNil(a.Offer.Choices)), compactJSON(missing))
	case ExpectMaxTokens:
		n := a.Usage.InputTokens + a.Usage.OutputTokens
		return n <= e.MaxTokens, fmt.Sprintf("the turn used %d tokens (%d in, %d out), over %d",
			n, a.Usage.InputTokens, a.Usage.OutputTokens, e.MaxTokens)
	case ExpectJudge:
		pass, reason, err := r.judge(ctx, e.Text, s.history, a.Text)
		if err != nil {
			return false, fmt.Sprintf("judge: %v", err)
		}
		return pass, reason
	}
	return false, "unknown expectation " + string(e.Kind)
}

// toolCalled looks for a call of the tool whose arguments include every
// argument the expectation names, with an equal value.
func toolCalled(e Expect, a answer) (bool, string) {
	var seen []string
	for _, c := range a.Calls {
		seen = append(seen, c.Name+"("+c.Arguments+")")
		if c.Name == e.Tool && argsMatch(e.Args, c.Arguments) {
			return true, ""
		}
	}
	if len(seen) == 0 {
		return false, fmt.Sprintf("no tool was called; want %s", e.Tool)
	}
	return false, fmt.Sprintf("calls were %s; want %s", strings.Join(seen, ", "), strings.TrimPrefix(e.String(), "tool_called: "))
}

func argsMatch(want map[string]any, got string) bool {
	if len(want) == 0 {
		return true
	}
	var args map[string]any
	if json.Unmarshal([]byte(got), &args) != nil {
		return false
	}
	for k, v := range want {
		if !reflect.DeepEqual(normalize(v), normalize(args[k])) {
			return false
		}
	}
	return true
}

// normalize makes a YAML and a JSON value comparable (numbers as float64).
func normalize(v any) any {
	var out any
	if json.Unmarshal([]byte(compactJSON(v)), &out) != nil {
		return v
	}
	return out
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
