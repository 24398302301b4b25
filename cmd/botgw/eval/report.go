package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/botgw/botgw"
)

// Report is the outcome of a whole eval run (the -json report).
type Report struct {
	Provider      string      `json:"provider"`
	Started       time.Time   `json:"started"`
	DurationMS    int64       `json:"duration_ms"`
	Repeat        int         `json:"repeat"`
	Passed        int         `json:"passed"`
	Failed        int         `json:"failed"`
	Tokens        botgw.Usage `json:"tokens"`
	Conversations []*Result   `json:"conversations"`
}

// Result is one conversation over all its runs. Steps are those of its
// first failing run (else its first run); each expectation there carries
// its pass rate over every run.
type Result struct {
	Suite       string       `json:"suite"`
	File        string       `json:"file"`
	Name        string       `json:"name"`
	Line        int          `json:"line"`
	Pass        bool         `json:"pass"`
	Runs        int          `json:"runs"`
	PassedRuns  int          `json:"passed_runs"`
	MinPassRate float64      `json:"min_pass_rate"`
	DurationMS  int64        `json:"duration_ms"`
	Error       string       `json:"error,omitempty"` // why the shown run stopped early
	Completed   int          `json:"completed_runs"`  // runs that reached their last step
	Steps       []StepResult `json:"steps"`
}

// Where is the conversation's place in its suite.
func (r *Result) Where() string { return fmt.Sprintf("%s:%d", r.File, r.Line) }

// Failures are the expectations below the pass rate, with their steps.
func (r *Result) Failures() []ExpectResult {
	var out []ExpectResult
	for _, s := range r.Steps {
		for _, e := range s.Expect {
			if e.Rate < r.MinPassRate {
				out = append(out, e)
			}
		}
	}
	return out
}

func (rep *Report) add(r *Result) {
	rep.Conversations = append(rep.Conversations, r)
	if r.Pass {
		rep.Passed++
	} else {
		rep.Failed++
	}
	for _, s := range r.Steps {
		rep.Tokens.InputTokens += s.Tokens.InputTokens
		rep.Tokens.OutputTokens += s.Tokens.OutputTokens
	}
}

// aggregate folds a conversation's runs into its result.
func aggregate(c *Conversation, runs []run) *Result {
	res := &Result{Suite: c.Suite.Name, File: c.Suite.File, Name: c.Name, Line: c.Line,
		Runs: len(runs), MinPassRate: c.Suite.MinPassRate}
	shown := 0
	for i, r := range runs {
		if r.passed() {
			res.PassedRuns++
		} else if shown == 0 && runs[0].passed() {
			shown = i
		}
		if r.err == "" {
			res.Completed++
		}
		res.DurationMS = max(res.DurationMS, r.dur.Milliseconds())
	}
	res.Error = runs[shown].err
	res.Steps = stepsOf(c, runs[shown])
	pass := float64(res.Completed)/float64(len(runs)) >= res.MinPassRate
	for i := range res.Steps {
		for j := range res.Steps[i].Expect {
			e := &res.Steps[i].Expect[j]
			e.Runs, e.Passes = len(runs), passes(runs, i, j)
			e.Rate = float64(e.Passes) / float64(e.Runs)
			pass = pass && e.Rate >= res.MinPassRate
		}
	}
	res.Pass = pass
	return res
}

// stepsOf is every step of c as run r went: the steps it did not reach
// are listed with their expectations unchecked.
func stepsOf(c *Conversation, r run) []StepResult {
	steps := append([]StepResult(nil), r.steps...)
	for _, st := range c.Steps[len(r.steps):] {
		s := StepResult{Kind: st.Kind, Line: st.Line, Input: st.Input(), Baseline: st.Baseline}
		for _, e := range st.Expect {
			s.Expect = append(s.Expect, ExpectResult{Expect: e.String(), Line: e.Line, Reason: "not reached"})
		}
		steps = append(steps, s)
	}
	return steps
}

// passes counts the runs in which expectation j of step i held.
func passes(runs []run, i, j int) int {
	n := 0
	for _, r := range runs {
		if i < len(r.steps) && j < len(r.steps[i].Expect) && r.steps[i].Expect[j].Pass {
			n++
		}
	}
	return n
}

// WriteJSON writes the report to file.
func (rep *Report) WriteJSON(file string) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
