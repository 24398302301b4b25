package compaction

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

const weatherLine = `Earlier: user asked "what's the weather in Paris?"; get_weather({"city":"Paris"}) → sunny 22°C`

const cafeLine = `Earlier: user asked "find me a cafe nearby"; ` +
	`find_places({"kind":"cafe","near":"Harrogate Theatre"}) → ["Bettys"]`

func TestStrategies(t *testing.T) {
	huge2 := user(strings.Repeat("more ", 8000))
	withHugeLast := append(rich(), huge2)
	tests := []struct {
		name string
		c    botgw.Compactor
		in   []botgw.Message
		want []botgw.Message // nil: only the invariants and check
		// check asserts more about the output.
		check func(t *testing.T, out []botgw.Message)
		raw   bool // no invariants: the strategy is None
	}{{
		name: "last_n keeps N exchanges, pinned events and a summary of the dropped tool exchange",
		c:    KeepLast(2),
		in:   rich(),
		want: []botgw.Message{
			gameStarted, summary(weatherLine), theatre, score,
			cafeAsk, cafeCall, assistant("Try Bettys, two minutes away."),
			user("thanks"), assistant("You're welcome!"),
		},
	}, {
		name: "last_n caps summaries at N, newest first",
		c:    KeepLast(1),
		in:   rich(),
		want: []botgw.Message{theatre, score, summary(cafeLine), user("thanks"), assistant("You're welcome!")},
	}, {
		name: "last_n merges consecutive dropped tool exchanges into one summary",
		c:    KeepLast(2),
		in: []botgw.Message{
			weatherAsk, weatherCall, assistant("Sunny."), cafeAsk, cafeCall, assistant("Bettys."),
			user("hi"), assistant("Hello!"), user("thanks"), assistant("You're welcome!"),
		},
		want: []botgw.Message{
			summary(weatherLine + "\n" + cafeLine),
			user("hi"), assistant("Hello!"), user("thanks"), assistant("You're welcome!"),
		},
	}, {
		name: "last_n under its limit only leaves out superseded events",
		c:    KeepLast(20),
		in:   rich(),
		want: rich()[1:],
	}, {
		name: "token_budget under budget only leaves out superseded events",
		c:    TokenBudget(100_000, Heuristic),
		in:   rich(),
		want: rich()[1:],
	}, {
		name: "token_budget drops the oldest exchanges until it fits",
		c:    TokenBudget(300, Heuristic),
		in:   rich(),
		check: func(t *testing.T, out []botgw.Message) {
			assertFits(t, out, 300, Heuristic)
			assertContains(t, out, cafeAsk, user("thanks"))
			assertSummaries(t, out, weatherLine)
			assertLacks(t, out, huge, user("hi"))
		},
	}, {
		name: "token_budget keeps the newest exchange whole when it alone exceeds the budget",
		c:    TokenBudget(300, Heuristic),
		in:   withHugeLast,
		want: []botgw.Message{theatre, score, huge2},
	}, {
		name: "none returns the history unchanged, superseded events too",
		c:    None(),
		in:   rich(),
		want: rich(),
		raw:  true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := compact(t, tt.c, tt.in)
			if tt.want != nil && !reflect.DeepEqual(out, tt.want) {
				t.Fatalf("got %s\nwant %s", render(out), render(tt.want))
			}
			if !tt.raw {
				checkInvariants(t, tt.in, out)
			}
			if tt.check != nil {
				tt.check(t, out)
			}
		})
	}
}

func TestTokenBudgetFitsEveryBudget(t *testing.T) {
	in := rich()
	for budget := 0; budget <= 12_000; budget += 50 {
		out := compact(t, TokenBudget(budget, Heuristic), in)
		checkInvariants(t, in, out)
		assertContains(t, out, user("thanks"))
		if CountMessages(Heuristic, out) <= budget {
			continue
		}
		if want := []botgw.Message{theatre, score, user("thanks"), assistant("You're welcome!")}; !reflect.DeepEqual(out, want) {
			t.Fatalf("budget %d: over budget with %s\nwant only the pinned events and the newest exchange", budget, render(out))
		}
	}
}

func TestSupersededEventInsideExchangeIsNotResurrected(t *testing.T) {
	in := []botgw.Message{
		user("hi"), assistant("Hello!"), staleLocation, score,
		weatherAsk, weatherCall, assistant("Sunny."), theatre,
		user("thanks"), assistant("You're welcome!"),
	}
	for _, c := range []botgw.Compactor{KeepLast(1), KeepLast(5), TokenBudget(40, Heuristic), TokenBudget(10_000, Heuristic)} {
		out := compact(t, c, in)
		checkInvariants(t, in, out)
	}
}

func TestChainAndWhen(t *testing.T) {
	chained := compact(t, Chain(KeepLast(3), TokenBudget(300, Heuristic)), rich())
	checkInvariants(t, rich(), chained)
	assertFits(t, chained, 300, Heuristic)

	never := When(func([]botgw.Message) bool { return false }, KeepLast(1))
	if out := compact(t, never, rich()); !reflect.DeepEqual(out, rich()) {
		t.Errorf("When with a false trigger changed the history:%s", render(out))
	}
	out := compact(t, When(OverTokens(5000, Heuristic), KeepLast(1)), rich())
	if want := compact(t, KeepLast(1), rich()); !reflect.DeepEqual(out, want) {
		t.Errorf("When with a true trigger: got %s\nwant %s", render(out), render(want))
	}
	if out := compact(t, When(OverTokens(20_000, Heuristic), KeepLast(1)), rich()); !reflect.DeepEqual(out, rich()) {
		t.Errorf("When(OverTokens) under its limit changed the history:%s", render(out))
	}
}

func TestChainStopsAtAnError(t *testing.T) {
	boom := errors.New("boom")
	failing := botgw.CompactorFunc(func(context.Context, []botgw.Message, botgw.UsageHint) ([]botgw.Message, error) { return nil, boom })
	_, err := Chain(KeepLast(5), failing, KeepLast(1)).Compact(context.Background(), rich(), botgw.UsageHint{})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "compaction step 2") {
		t.Errorf("Chain error = %v, want boom wrapped with its step", err)
	}
}

func TestToolSummary(t *testing.T) {
	long := strings.Repeat("é", 300)
	tests := []struct {
		name string
		ex   []botgw.Message
		want string
	}{
		{"no tools", []botgw.Message{user("hi"), assistant("Hello")}, ""},
		{"result", []botgw.Message{weatherAsk, weatherCall, assistant("Sunny.")}, weatherLine},
		{"error and no result", []botgw.Message{user("where\nam I?"), {Role: botgw.RoleAssistant, ToolCalls: []botgw.ToolCall{
			{Name: "locate", Arguments: "{}", Error: "GPS unavailable"}, {Name: "guess", Arguments: "{}"},
		}}}, `Earlier: user asked "where am I?"; locate({}) → error: GPS unavailable; guess({}) → no result`},
		{"long parts are clipped", []botgw.Message{user(long), call("echo", long, long)},
			`Earlier: user asked "` + strings.Repeat("é", 99) + `…"; echo(` + strings.Repeat("é", 79) + "…) → " + strings.Repeat("é", 99) + "…"},
		{"many calls", []botgw.Message{user("go"), call("a", "1", "x"), call("b", "2", "x"), call("c", "3", "x"), call("d", "4", "x"), call("e", "5", "x"), call("f", "6", "x")},
			`Earlier: user asked "go"; a(1) → x; b(2) → x; c(3) → x; d(4) → x; and 2 more tool calls`},
	}
	for _, tt := range tests {
		if got := toolSummary(tt.ex); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"  a  b\n\n\tc  ", 10, "a b c"},
		{"aaa bb", 6, "aaa bb"},
		{"aaa bbb ccc", 6, "aaa b…"},
		{"aaaa bbb", 6, "aaaa…"},
		{"héllo wörld", 5, "héll…"},
	}
	for _, tt := range tests {
		if got := clip(tt.in, tt.n); got != tt.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func assertFits(t *testing.T, out []botgw.Message, budget int, c Counter) {
	t.Helper()
	if got := CountMessages(c, out); got > budget {
		t.Errorf("%d tokens, want at most %d:%s", got, budget, render(out))
	}
}

func assertContains(t *testing.T, out []botgw.Message, ms ...botgw.Message) {
	t.Helper()
	for _, m := range ms {
		if !containsMessage(out, m) {
			t.Errorf("output lacks %s:%s", render([]botgw.Message{m}), render(out))
		}
	}
}

func assertLacks(t *testing.T, out []botgw.Message, ms ...botgw.Message) {
	t.Helper()
	for _, m := range ms {
		if containsMessage(out, m) {
			t.Errorf("output still has %s", render([]botgw.Message{m}))
		}
	}
}

func containsMessage(h []botgw.Message, m botgw.Message) bool {
	for _, x := range h {
		if reflect.DeepEqual(x, m) {
			return true
		}
	}
	return false
}

// assertSummaries asserts that each line is in one of out's summaries.
func assertSummaries(t *testing.T, out []botgw.Message, lines ...string) {
	t.Helper()
	all := strings.Join(summaries(out), "\n")
	for _, l := range lines {
		if !strings.Contains(all, l) {
			t.Errorf("summaries %q lack %q", all, l)
		}
	}
}
