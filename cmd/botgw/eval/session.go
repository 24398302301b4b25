package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo"
)

// ChannelName is the channel eval's chats are on: no platform, its
// replies are only captured.
const ChannelName = "eval"

// capture is the channel of one session: it keeps the replies the engine
// sends and tells the session of each.
type capture struct{ replies chan botgw.Outbound }

func (c *capture) Name() string { return ChannelName }

func (c *capture) Send(ctx context.Context, m botgw.Outbound) error {
	select {
	case c.replies <- m:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// mockTools answers the config's tools with the suite's answers and
// records every call.
type mockTools struct {
	specs   []botgw.ToolSpec
	answers map[string]string
	mu      sync.Mutex
	calls   []botgw.ToolCall
}

func (t *mockTools) Specs() []botgw.ToolSpec { return t.specs }

func (t *mockTools) Call(_ context.Context, _ botgw.ChatKey, _ string, call botgw.ToolCall) (string, error) {
	answer, ok := t.answers[call.Name]
	t.mu.Lock()
	defer t.mu.Unlock()
	if !ok {
		call.Error = "the suite gives no answer for this tool (tools: in the suite)"
		t.calls = append(t.calls, call)
		return "", errors.New(call.Error)
	}
	call.Result = answer
	t.calls = append(t.calls, call)
	return answer, nil
}

// since returns the calls from the n-th on.
func (t *mockTools) since(n int) []botgw.ToolCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]botgw.ToolCall(nil), t.calls[min(n, len(t.calls)):]...)
}

func (t *mockTools) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.calls)
}

// session is one run of one conversation on an engine of its own.
type session struct {
	suite   *Suite
	eng     *convo.Engine
	chat    botgw.ChatKey
	ch      *capture
	turns   chan convo.TurnStats
	tools   *mockTools
	wait    time.Duration // the longest a step waits for its turn
	offered botgw.Offer   // what the last reply offered
	history []turnLine    // the conversation so far, for the judge
}

// turnLine is one line of the conversation as the judge reads it.
type turnLine struct{ Who, Text string }

// answer is what one step got back.
type answer struct {
	Text    string
	Offer   botgw.Offer
	Usage   botgw.Usage
	Calls   []botgw.ToolCall
	Latency time.Duration
	Outcome string
}

// final reports whether a turn's outcome ends the step's work: a
// conflict or an interrupted turn is run again.
func final(outcome string) bool { return outcome != "conflict" && outcome != "interrupted" }

// run gives the engine one step's input and waits until its turns were
// committed and their replies sent.
func (s *session) run(ctx context.Context, in botgw.Inbound) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, s.wait)
	defer cancel()
	calls, start := s.tools.count(), time.Now()
	if err := s.eng.Handle(ctx, in); err != nil {
		return answer{}, fmt.Errorf("engine: %w", err)
	}
	var a answer
	replies := 0
	for done := false; !done; {
		select {
		case st := <-s.turns:
			a.Usage.InputTokens += st.Usage.InputTokens
			a.Usage.OutputTokens += st.Usage.OutputTokens
			a.Outcome, replies, done = st.Outcome, st.Replies, final(st.Outcome)
		case <-ctx.Done():
			return a, fmt.Errorf("no answer within %s (the turn did not finish)", s.wait)
		}
	}
	var texts []string
	for range replies {
		select {
		case m := <-s.ch.replies:
			texts = append(texts, m.Text)
			if !m.Offer.IsZero() {
				a.Offer = m.Offer
			}
		case <-ctx.Done():
			return a, fmt.Errorf("reply not delivered within %s", s.wait)
		}
	}
	a.Text, a.Latency, a.Calls = strings.Join(texts, "\n\n"), time.Since(start), s.tools.since(calls)
	if a.Outcome == "commit_error" {
		return a, errors.New("the engine could not commit the turn")
	}
	return a, nil
}

// inbound is step i's input as a channel would deliver it; a tap needs a
// choice the last reply offered.
func (s *session) inbound(st Step, i int) (botgw.Inbound, error) {
	in := botgw.Inbound{Chat: s.chat, Kind: botgw.KindText, ID: fmt.Sprintf("m%d", i),
		UserID: "player", UserName: "Player", Text: st.Text, At: time.Now()}
	switch st.Kind {
	case StepEvent:
		return botgw.Inbound{Chat: s.chat, Kind: botgw.KindEvent, ID: fmt.Sprintf("evt:%d", i), At: in.At,
			Event: &botgw.Event{ID: fmt.Sprint(i), Key: st.Key, Text: st.Text}}, nil
	case StepLocation:
		in.Location, in.Text = st.Location, st.Location.String()
	case StepTap:
		idx, err := tapped(s.offered.Choices, st.Text)
		if err != nil {
			return in, err
		}
		in.Text, in.Tap = s.offered.Choices[idx], &botgw.Tap{Ref: s.offered.Ref, Index: idx}
	}
	return in, nil
}

// tapped finds label among the choices offered, exactly or else ignoring
// case.
func tapped(choices []string, label string) (int, error) {
	if len(choices) == 0 {
		return 0, fmt.Errorf("tap %q: the last reply offered no choices", label)
	}
	for i, c := range choices {
		if c == label {
			return i, nil
		}
	}
	for i, c := range choices {
		if strings.EqualFold(c, label) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("tap %q: the last reply offered %s", label, compactJSON(choices))
}

// where is the place of a line of the session's suite.
func (s *session) where(line int) string { return s.suite.Where(line) }

// note adds a step and its answer to the conversation so far.
func (s *session) note(st Step, a answer) {
	if st.Kind == StepEvent {
		s.history = append(s.history, turnLine{"app event", st.Text})
		return
	}
	who := "player"
	if st.Kind == StepTap {
		who = "player (tapped a choice)"
	}
	s.history = append(s.history, turnLine{who, st.Input()}, turnLine{"assistant", a.Text})
	s.offered = a.Offer
}

// close stops the session's engine.
func (s *session) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.eng.Close(ctx)
}
