package compaction

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/botgw/botgw"
)

func user(text string) botgw.Message { return botgw.Message{Role: botgw.RoleUser, Text: text} }

func assistant(text string) botgw.Message {
	return botgw.Message{Role: botgw.RoleAssistant, Text: text}
}

func call(name, args, result string) botgw.Message {
	return botgw.Message{Role: botgw.RoleAssistant, ToolCalls: []botgw.ToolCall{
		{ID: "call_" + name, Name: name, Arguments: args, Result: result},
	}}
}

func event(key, text string) botgw.Message {
	return botgw.Message{Role: botgw.RoleEvent, EventKey: key, EventID: "evt-" + text, Text: text}
}

func summary(text string) botgw.Message { return botgw.Message{Role: botgw.RoleSummary, Text: text} }

// huge is a user message of 10,000 tokens by Heuristic.
var huge = user(strings.Repeat("word ", 8000))

// Messages of the rich history, named so tests can say what they expect.
var (
	staleLocation = event("location", "Player is at the station")
	oldSummary    = summary("Summary of the earlier conversation: the player is called Ada.")
	gameStarted   = event("", "Game started")
	weatherAsk    = user("what's the weather in Paris?")
	weatherCall   = call("get_weather", `{"city":"Paris"}`, "sunny 22°C")
	theatre       = event("location", "Player is at Harrogate Theatre")
	score         = event("score", "Player has 50 points")
	badge         = event("", "Player earned the explorer badge")
	cafeAsk       = user("find me a cafe nearby")
	cafeCall      = call("find_places", `{"kind":"cafe","near":"Harrogate Theatre"}`, `["Bettys"]`)
)

// rich is a history with everything compaction must handle: a superseded
// keyed event, a summary and a keyless event before the first user message,
// tool exchanges, pinned events inside an exchange and a 10,000-token user
// message.
func rich() []botgw.Message {
	return []botgw.Message{
		staleLocation, oldSummary, gameStarted,
		user("hi"), assistant("Hello Ada! Where are you heading?"),
		weatherAsk, weatherCall, assistant("It's sunny and 22°C in Paris."), theatre, score,
		huge, assistant("That is a long story."), badge,
		cafeAsk, cafeCall, assistant("Try Bettys, two minutes away."),
		user("thanks"), assistant("You're welcome!"),
	}
}

func clone(h []botgw.Message) []botgw.Message {
	c := slices.Clone(h)
	for i := range c {
		c[i].ToolCalls = slices.Clone(c[i].ToolCalls)
		c[i].InboundIDs = slices.Clone(c[i].InboundIDs)
	}
	return c
}

// compact runs c on h and fails the test if it changed h, even through an
// append to its result.
func compact(t *testing.T, c botgw.Compactor, h []botgw.Message) []botgw.Message {
	t.Helper()
	before := clone(h)
	out, err := c.Compact(context.Background(), h, botgw.UsageHint{})
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	_ = append(out, user("appended by the caller"))
	if !reflect.DeepEqual(h, before) {
		t.Fatalf("Compact mutated its input:\n got %s\nwant %s", render(h), render(before))
	}
	return out
}

// checkInvariants asserts what every strategy but None promises: exchanges
// whole and in order, the latest event of each key present once, superseded
// ones absent, nothing but summaries invented.
func checkInvariants(t *testing.T, in, out []botgw.Message) {
	t.Helper()
	checkPinned(t, in, out)
	checkExchangesWhole(t, in, out)
	j := 0 // in[:j] is matched
	for _, m := range out {
		k := j
		for k < len(in) && !reflect.DeepEqual(in[k], m) {
			k++
		}
		switch {
		case k < len(in):
			j = k + 1
		case m.Role != botgw.RoleSummary:
			t.Fatalf("output has a message not from the input, or out of order:%s\noutput:%s", render([]botgw.Message{m}), render(out))
		}
	}
}

func checkPinned(t *testing.T, in, out []botgw.Message) {
	t.Helper()
	latest := map[string]botgw.Message{}
	for _, m := range in {
		if m.Role == botgw.RoleEvent && m.EventKey != "" {
			latest[m.EventKey] = m
		}
	}
	for key, want := range latest {
		n := 0
		for _, m := range out {
			if m.Role == botgw.RoleEvent && m.EventKey == key {
				if !reflect.DeepEqual(m, want) {
					t.Errorf("event %q: got superseded %q, want only the latest %q", key, m.Text, want.Text)
				}
				n++
			}
		}
		if n != 1 {
			t.Errorf("event %q: %d in output, want the latest once:\n%s", key, n, render(out))
		}
	}
}

// checkExchangesWhole asserts that every exchange in out is its input
// exchange, less superseded events.
func checkExchangesWhole(t *testing.T, in, out []botgw.Message) {
	t.Helper()
	want := exchangesOf(withoutStale(in))
	for start, ex := range exchangesOf(out) {
		if !reflect.DeepEqual(want[start], ex) {
			t.Errorf("exchange %q cut:\n got %s\nwant %s", start, render(ex), render(want[start]))
		}
	}
}

func exchangesOf(h []botgw.Message) map[string][]botgw.Message {
	m := map[string][]botgw.Message{}
	for i := nextUser(h, 0); i < len(h); {
		end := nextUser(h, i+1)
		m[h[i].Text] = h[i:end]
		i = end
	}
	return m
}

func withoutStale(h []botgw.Message) []botgw.Message {
	latest := latestEvents(h)
	var out []botgw.Message
	for i, m := range h {
		if !isStale(m, i, latest) {
			out = append(out, m)
		}
	}
	return out
}

func summaries(h []botgw.Message) []string {
	var s []string
	for _, m := range h {
		if m.Role == botgw.RoleSummary {
			s = append(s, m.Text)
		}
	}
	return s
}

func render(h []botgw.Message) string {
	var b strings.Builder
	for _, m := range h {
		text := m.Text
		if len(text) > 60 {
			text = text[:60] + fmt.Sprintf("…(%d bytes)", len(m.Text))
		}
		fmt.Fprintf(&b, "\n  %s %q", m.Role, text)
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, " %s(%s)", tc.Name, tc.Arguments)
		}
	}
	return b.String()
}

// fakeProvider is a scripted botgw.Provider that records its requests.
type fakeProvider struct {
	reply func(botgw.Request) (botgw.Reply, error)

	mu       sync.Mutex
	requests []botgw.Request
}

func (f *fakeProvider) ID() string { return "fake/summariser" }

func (f *fakeProvider) Complete(_ context.Context, req botgw.Request) (botgw.Reply, error) {
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	return f.reply(req)
}

func replyText(text string) func(botgw.Request) (botgw.Reply, error) {
	return func(botgw.Request) (botgw.Reply, error) {
		return botgw.Reply{Text: text, Provider: "fake/summariser"}, nil
	}
}
