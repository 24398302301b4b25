package eval

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo"
)

// Engines builds an engine like serve's for one conversation
// (gateway.Rig).
type Engines interface {
	Engine(ch botgw.Channel, tools convo.Tools, hooks convo.Hooks) (*convo.Engine, error)
	ToolSpecs() []botgw.ToolSpec
	Provider() string
	StepTimeout() time.Duration
}

// Runner runs conversations and checks their replies.
type Runner struct {
	Engines Engines
	Judge   Judge // nil: judge expectations fail
	// Parallel bounds the conversations in flight (default 8); the model
	// calls are bounded besides by the provider's max_concurrency.
	Parallel int
	Repeat   int                   // runs of each conversation (default 1)
	Progress func(done, total int) // called after each run; nil: none
}

// StepResult is one step of a run: its input, the reply, the baseline and
// each expectation's outcome.
type StepResult struct {
	Kind      StepKind         `json:"kind"`
	Line      int              `json:"line"`
	Input     string           `json:"input"`
	Reply     string           `json:"reply,omitempty"`
	Choices   []string         `json:"choices,omitempty"`
	Baseline  string           `json:"baseline,omitempty"`
	Tokens    botgw.Usage      `json:"tokens"`
	LatencyMS int64            `json:"latency_ms"`
	ToolCalls []botgw.ToolCall `json:"tool_calls,omitempty"`
	Expect    []ExpectResult   `json:"expect,omitempty"`
	Error     string           `json:"error,omitempty"`
	Reached   bool             `json:"reached"`
}

// run is one run of a conversation.
type run struct {
	steps []StepResult
	err   string // why the run stopped early; "" when it reached its end
	dur   time.Duration
}

func (r run) passed() bool {
	if r.err != "" {
		return false
	}
	for _, s := range r.steps {
		for _, e := range s.Expect {
			if !e.Pass {
				return false
			}
		}
	}
	return true
}

// Run runs every conversation of suites Repeat times and returns the report.
func (r *Runner) Run(ctx context.Context, suites []*Suite) *Report {
	repeat, parallel := max(r.Repeat, 1), r.Parallel
	if parallel <= 0 {
		parallel = 8
	}
	rep := &Report{Provider: r.Engines.Provider(), Started: time.Now(), Repeat: repeat}
	var convs []*Conversation
	for _, s := range suites {
		convs = append(convs, s.Conversations...)
	}
	runs := make([][]run, len(convs))
	for i := range runs {
		runs[i] = make([]run, repeat)
	}
	var mu sync.Mutex
	done, total := 0, len(convs)*repeat
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for i, c := range convs {
		for n := range repeat {
			g.Go(func() error {
				chat := botgw.ChatKey{Channel: ChannelName, ID: fmt.Sprintf("c%d-r%d", i, n)}
				runs[i][n] = r.once(gctx, c, chat)
				mu.Lock()
				done++
				if r.Progress != nil {
					r.Progress(done, total)
				}
				mu.Unlock()
				return nil
			})
		}
	}
	_ = g.Wait()
	for i, c := range convs {
		rep.add(aggregate(c, runs[i]))
	}
	rep.DurationMS = time.Since(rep.Started).Milliseconds()
	return rep
}

// once runs conversation c once on chat.
func (r *Runner) once(ctx context.Context, c *Conversation, chat botgw.ChatKey) run {
	start := time.Now()
	out := run{}
	s, err := r.open(c, chat)
	if err != nil {
		out.err = err.Error()
		return out
	}
	defer s.close()
	for i, st := range c.Steps {
		res, err := r.step(ctx, s, st, i)
		out.steps = append(out.steps, res)
		if err != nil {
			out.err = fmt.Sprintf("%s: %v", s.where(st.Line), err)
			break
		}
	}
	out.dur = time.Since(start)
	return out
}

// step runs one step and checks its reply.
func (r *Runner) step(ctx context.Context, s *session, st Step, i int) (StepResult, error) {
	res := StepResult{Kind: st.Kind, Line: st.Line, Input: st.Input(), Baseline: st.Baseline, Reached: true}
	in, err := s.inbound(st, i)
	if err == nil {
		var a answer
		a, err = s.run(ctx, in)
		res.Reply, res.Choices, res.Tokens, res.ToolCalls = a.Text, a.Offer.Choices, a.Usage, a.Calls
		res.LatencyMS = a.Latency.Milliseconds()
		if err == nil {
			for _, e := range st.Expect {
				res.Expect = append(res.Expect, r.check(ctx, s, e, a))
			}
			s.note(st, a)
			return res, nil
		}
	}
	res.Error = err.Error()
	for _, e := range st.Expect {
		res.Expect = append(res.Expect, ExpectResult{Expect: e.String(), Line: e.Line, Reason: "not checked: " + err.Error()})
	}
	return res, err
}

// open starts a session on an engine of its own.
func (r *Runner) open(c *Conversation, chat botgw.ChatKey) (*session, error) {
	s := &session{chat: chat, suite: c.Suite, ch: &capture{replies: make(chan botgw.Outbound, 64)},
		turns: make(chan convo.TurnStats, 64), wait: r.Engines.StepTimeout(),
		tools: &mockTools{specs: r.Engines.ToolSpecs(), answers: c.Suite.Tools}}
	hooks := convo.Hooks{Turn: func(st convo.TurnStats) {
		select {
		case s.turns <- st:
		default: // a step that gave up no longer reads; the session ends
		}
	}}
	var tools convo.Tools
	if len(s.tools.specs) > 0 {
		tools = s.tools
	}
	eng, err := r.Engines.Engine(s.ch, tools, hooks)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	s.eng = eng
	return s, nil
}
