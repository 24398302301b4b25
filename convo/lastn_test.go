package convo

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/compaction"
	"github.com/botgw/botgw/providers/fake"
)

// rendered shows a request's messages as "role: text", in order.
func rendered(h []botgw.Message) []string {
	out := make([]string, len(h))
	for i, m := range h {
		out[i] = string(m.Role) + ": " + m.Text
	}
	return out
}

// compactedRig is a rig whose engine compacts with cfg; summaries come from
// summariser. Replies are "reply 0", "reply 1", ...
func compactedRig(t *testing.T, cfg compaction.Config, summariser botgw.Provider) *rig {
	t.Helper()
	var steps []fake.Step
	for i := range 10 {
		steps = append(steps, fake.Step{Text: fmt.Sprint("reply ", i)})
	}
	c, err := compaction.New(cfg, summariser, nil)
	if err != nil {
		t.Fatal(err)
	}
	return newRig(t, openStore(t, false, fastStore), fake.New(steps...), Config{}, func(e *Engine) { e.deps.Compactor = c })
}

// exchange says text and waits for the reply; it returns the request the
// model got.
func (r *rig) exchange(t *testing.T, i int, text string) botgw.Request {
	t.Helper()
	r.say(t, testChat, msgID(i), text)
	r.ch.Wait(t, i+1, 5*time.Second)
	reqs := r.prov.Requests()
	return reqs[len(reqs)-1]
}

func (r *rig) inject(t *testing.T, id, key, text string) {
	t.Helper()
	if err := r.eng.Handle(t.Context(), event(testChat, id, key, text, false)); err != nil {
		t.Fatal(err)
	}
}

// last_n: N completed exchanges besides the message being answered; the
// latest keyed event survives where it was, and an event that came with the
// new message goes with it.
func TestLastNKeepsNExchangesBesidesTheNewMessage(t *testing.T) {
	for n, want := range map[int][]string{
		1: {"event: Player is at the theatre", "user: message 3", "assistant: reply 3", "event: Player earned a badge", "user: message 4"},
		2: {"event: Player is at the theatre", "user: message 2", "assistant: reply 2",
			"user: message 3", "assistant: reply 3", "event: Player earned a badge", "user: message 4"},
	} {
		t.Run(fmt.Sprint("max_exchanges=", n), func(t *testing.T) {
			r := compactedRig(t, compaction.Config{Strategy: compaction.StrategyLastN, MaxExchanges: n}, nil)
			for i := range 4 {
				r.exchange(t, i, fmt.Sprint("message ", i))
				if i == 0 {
					r.inject(t, "loc", "location", "Player is at the theatre")
				}
			}
			r.inject(t, "badge", "", "Player earned a badge")
			if got := rendered(r.exchange(t, 4, "message 4").Messages); !slices.Equal(got, want) {
				t.Errorf("the model got\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// summarize: once over budget, the oldest exchanges become a summary and at
// least keep_recent completed exchanges stay whole besides the new message.
func TestSummarizeKeepsRecentExchangesBesidesTheNewMessage(t *testing.T) {
	pad := strings.Repeat("word ", 80) // ~100 tokens a message by the heuristic
	for n, want := range map[int][]string{
		1: {"summary: Summary of the earlier conversation: The player said hello.", "event: Player is at the theatre",
			"user: message 1 " + pad, "assistant: reply 1", "user: message 2 " + pad},
		2: {"summary: Summary of the earlier conversation: The player said hello.", "event: Player is at the theatre",
			"user: message 1 " + pad, "assistant: reply 1", "user: message 2 " + pad, "assistant: reply 2", "user: message 3 " + pad},
	} {
		t.Run(fmt.Sprint("keep_recent=", n), func(t *testing.T) {
			// the budget is first exceeded at the turn with N+1 completed exchanges
			cfg := compaction.Config{Strategy: compaction.StrategySummarize, KeepRecent: n, MaxTokens: 100 * (n + 2)}
			summariser := fake.New(fake.Step{Text: "The player said hello."})
			r := compactedRig(t, cfg, summariser)
			r.inject(t, "loc", "location", "Player is at the theatre")
			var last botgw.Request
			for i := range n + 2 {
				last = r.exchange(t, i, fmt.Sprint("message ", i, " ", pad))
			}
			if got := rendered(last.Messages); !slices.Equal(got, want) {
				t.Errorf("the model got\n%q\nwant\n%q", got, want)
			}
			if len(summariser.Requests()) != 1 {
				t.Errorf("%d summary requests, want 1", len(summariser.Requests()))
			}
		})
	}
}
