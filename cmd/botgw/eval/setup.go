package eval

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"

	"github.com/botgw/botgw/cmd/botgw/gateway"
	"github.com/botgw/botgw/convo"
)

// Setup builds the runner for suites from the gateway's config: serve's
// engine wiring on a throwaway embedded Redis, the model overridden by
// model when it is set (the judge keeps the config's), the judge when a
// suite needs one. A suite that does not fit the config is *Invalid. The
// caller closes the rig.
func Setup(ctx context.Context, cfg gateway.Config, model string, suites []*Suite, log *slog.Logger) (*Runner, *gateway.Rig, error) {
	if cfg.Eval.Judge == nil {
		cfg.Eval.Judge = gateway.JudgeOf(cfg.Provider)
	}
	if model != "" {
		cfg.Provider.Model = model
	}
	rig, err := gateway.NewRig(ctx, cfg, log)
	if err != nil {
		return nil, nil, err
	}
	r := &Runner{Engines: rig}
	bad := &Invalid{Problems: fit(suites, rig)}
	if usesJudge(suites) {
		j, err := rig.Judge()
		if err != nil {
			bad.Problems = append(bad.Problems, fmt.Sprintf("%s: %v", firstJudge(suites), err))
		}
		r.Judge = j
	}
	if len(bad.Problems) > 0 {
		rig.Close()
		return nil, nil, bad
	}
	return r, rig, nil
}

// fit checks the suites against the config: the bot, the tools they
// answer and the tools they expect calls of.
func fit(suites []*Suite, rig *gateway.Rig) []string {
	declared := []string{convo.OfferChoicesTool}
	for _, t := range rig.ToolSpecs() {
		declared = append(declared, t.Name)
	}
	var problems []string
	for _, s := range suites {
		if s.Bot != "" {
			problems = append(problems, fmt.Sprintf("%s: bot: the config has no bot %q (it has no bots section)", s.Where(s.line["bot"]), s.Bot))
		}
		names := make([]string, 0, len(s.Tools))
		for name := range s.Tools {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if !slices.Contains(declared, name) {
				problems = append(problems, fmt.Sprintf("%s: tools.%s: the config declares no such tool (tools: in the config)", s.Where(s.toolLine[name]), name))
			}
		}
		problems = append(problems, expectedTools(s, declared)...)
	}
	return problems
}

func expectedTools(s *Suite, declared []string) []string {
	var problems []string
	for _, c := range s.Conversations {
		for _, st := range c.Steps {
			for _, e := range st.Expect {
				if e.Kind == ExpectToolCalled && !slices.Contains(declared, e.Tool) {
					problems = append(problems, fmt.Sprintf("%s: tool_called: the config declares no tool %q", s.Where(e.Line), e.Tool))
				}
			}
		}
	}
	return problems
}

func usesJudge(suites []*Suite) bool { return firstJudge(suites) != "" }

// firstJudge is the place of the first judge expectation, or "".
func firstJudge(suites []*Suite) string {
	for _, s := range suites {
		for _, c := range s.Conversations {
			for _, st := range c.Steps {
				for _, e := range st.Expect {
					if e.Kind == ExpectJudge {
						return s.Where(e.Line) + ": judge"
					}
				}
			}
		}
	}
	return ""
}
