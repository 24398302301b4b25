package compaction

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

// summarisable is a history of 8 exchanges, over 2000 tokens by Heuristic
// because of a 10,000-token message in its old half.
func summarisable() (old, recent []botgw.Message) {
	old = []botgw.Message{
		staleLocation, oldSummary,
		user("My name is Ada"), assistant("Nice to meet you, Ada."),
		weatherAsk, weatherCall, assistant("It's sunny."), score,
		user("I want to see a play"), assistant("Harrogate Theatre has one tonight."),
		huge, assistant("Noted."),
	}
	recent = []botgw.Message{
		user("where am I?"), assistant("At the station."), theatre,
		cafeAsk, cafeCall, assistant("Try Bettys."),
		user("thanks"), assistant("You're welcome!"),
		user("bye"), assistant("Bye, Ada!"),
	}
	return old, recent
}

func TestSummarizeReplacesTheOldHalf(t *testing.T) {
	old, recent := summarisable()
	h := append(old, recent...)
	p := &fakeProvider{reply: replyText(" Ada asked about the weather in Paris (sunny) and a play. ")}
	out := compact(t, Summarize(p, 2000, 2, Heuristic, TokenBudget(2000, Heuristic)), h)

	want := append([]botgw.Message{
		summary("Summary of the earlier conversation: Ada asked about the weather in Paris (sunny) and a play."),
		score,
	}, recent...)
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("got %s\nwant %s", render(out), render(want))
	}
	if len(p.requests) != 1 {
		t.Fatalf("%d summary requests, want 1", len(p.requests))
	}
	req := p.requests[0]
	if req.System == "" || len(req.Messages) != 1 {
		t.Fatalf("request has system %q and %d messages, want a system prompt and one message", req.System, len(req.Messages))
	}
	text := req.Messages[0].Text
	for _, s := range []string{oldSummary.Text, "My name is Ada", "Nice to meet you, Ada.", `get_weather({"city":"Paris"}) → sunny 22°C`, "I want to see a play", huge.Text} {
		if !strings.Contains(text, s) {
			t.Errorf("summary request lacks %.40q", s)
		}
	}
	for _, s := range []string{"where am I?", staleLocation.Text} {
		if strings.Contains(text, s) {
			t.Errorf("summary request has %q, which is not in the old part", s)
		}
	}
}

func TestSummarizeFallsBack(t *testing.T) {
	tests := []struct {
		name  string
		reply func(botgw.Request) (botgw.Reply, error)
	}{
		{"provider error", func(botgw.Request) (botgw.Reply, error) {
			return botgw.Reply{}, &botgw.ProviderError{Provider: "fake/summariser", Status: 500}
		}},
		{"empty summary", replyText(" \n ")},
		{"summary longer than the old part", replyText(strings.Repeat("blah ", 20_000))},
	}
	old, recent := summarisable()
	h := append(old, recent...)
	fallback := TokenBudget(2000, Heuristic)
	want := compact(t, fallback, h)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &fakeProvider{reply: tt.reply}
			out := compact(t, Summarize(p, 2000, 2, Heuristic, fallback), h)
			if len(p.requests) != 1 {
				t.Errorf("%d summary requests, want 1", len(p.requests))
			}
			if !reflect.DeepEqual(out, want) {
				t.Errorf("got %s\nwant the fallback's %s", render(out), render(want))
			}
			assertContains(t, out, recent...)
			checkInvariants(t, h, out)
		})
	}
}

func TestSummarizeNeverTouchesTheRecentExchanges(t *testing.T) {
	var h []botgw.Message
	for _, q := range []string{"one", "two", "three", "four", "five"} {
		h = append(h, user(q+" "+strings.Repeat("q", 800)), assistant(q+" "+strings.Repeat("a", 800)))
	}
	p := &fakeProvider{reply: replyText("The user counted to one.")}
	out := compact(t, Summarize(p, 500, 4, Heuristic, nil), h)
	if want := append([]botgw.Message{summary(summaryLead + "The user counted to one.")}, h[2:]...); !reflect.DeepEqual(out, want) {
		t.Errorf("got %s\nwant %s", render(out), render(want))
	}
}

func TestSummarizeWithoutCall(t *testing.T) {
	tests := []struct {
		name string
		h    []botgw.Message
		want []botgw.Message
	}{
		{"under budget", rich()[:10], rich()[1:10]},
		{"nothing old enough", []botgw.Message{user("hi"), assistant("Hello!"), huge},
			[]botgw.Message{huge}}, // the fallback, TokenBudget, keeps the newest exchange
	}
	for _, tt := range tests {
		p := &fakeProvider{reply: replyText("unused")}
		out := compact(t, Summarize(p, 2000, 4, Heuristic, TokenBudget(2000, Heuristic)), tt.h)
		if len(p.requests) != 0 {
			t.Errorf("%s: %d summary requests, want none", tt.name, len(p.requests))
		}
		if !reflect.DeepEqual(out, tt.want) {
			t.Errorf("%s: got %s\nwant %s", tt.name, render(out), render(tt.want))
		}
	}
}

func TestSummarizeResummarisesItsSummary(t *testing.T) {
	p := &fakeProvider{}
	n := 0
	p.reply = func(botgw.Request) (botgw.Reply, error) {
		n++
		return botgw.Reply{Text: "summary number " + strings.Repeat("x", n)}, nil
	}
	c := Summarize(p, 300, 2, Heuristic, nil)
	var h []botgw.Message
	for i := range 12 {
		h = append(h, user(strings.Repeat("question ", 20)+string(rune('a'+i))), assistant(strings.Repeat("answer ", 20)))
		var err error
		if h, err = c.Compact(context.Background(), h, botgw.UsageHint{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(p.requests) < 2 {
		t.Fatalf("%d summary requests, want several", len(p.requests))
	}
	last := p.requests[len(p.requests)-1].Messages[0].Text
	if !strings.Contains(last, "summary number") {
		t.Errorf("the latest summary request lacks the earlier summary:\n%s", last)
	}
	if got := summaries(h); len(got) != 1 {
		t.Errorf("history has %d summaries, want one: %q", len(got), got)
	}
}
