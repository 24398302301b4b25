package compaction

import (
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // substrings of the error; none: valid
	}{
		{"zero takes the defaults", Config{}, nil},
		{"every strategy", Config{Strategy: "summarize", MaxExchanges: 5, MaxTokens: 100, KeepRecent: 2}, nil},
		{"unknown strategy", Config{Strategy: "foo"},
			[]string{`compaction.strategy: unknown "foo" (want none, last_n, token_budget, summarize)`}},
		{"negative numbers", Config{MaxExchanges: -1, MaxTokens: -2, KeepRecent: -3}, []string{
			"compaction.max_exchanges: must not be negative, got -1",
			"compaction.max_tokens: must not be negative, got -2",
			"compaction.keep_recent: must not be negative, got -3",
		}},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if len(tt.want) == 0 {
			if err != nil {
				t.Errorf("%s: Validate() = %v, want nil", tt.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: Validate() = nil, want %q", tt.name, tt.want)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Validate() = %q, want it to say %q", tt.name, err, w)
			}
		}
	}
}

func TestNew(t *testing.T) {
	long := make([]botgw.Message, 0, 60)
	for range 30 {
		long = append(long, user(strings.Repeat("ask ", 100)), assistant(strings.Repeat("answer ", 100)))
	}
	summariser := &fakeProvider{reply: replyText("The user asked and was answered 25 times.")}
	tests := []struct {
		cfg   Config
		check func(out []botgw.Message) bool
		what  string
	}{
		{Config{}, func(out []botgw.Message) bool { return CountMessages(Heuristic, out) <= 4000 }, "fits 4000 tokens"},
		{Config{Strategy: "none"}, func(out []botgw.Message) bool { return len(out) == len(long) }, "is unchanged"},
		{Config{Strategy: "last_n", MaxExchanges: 3}, func(out []botgw.Message) bool { return len(out) == 6 }, "has 3 exchanges"},
		{Config{Strategy: "summarize", MaxTokens: 1000, KeepRecent: 2}, func(out []botgw.Message) bool {
			return out[0].Role == botgw.RoleSummary && len(out) == 1+30
		}, "starts with a summary of the first 15 exchanges"},
	}
	for _, tt := range tests {
		c, err := New(tt.cfg, summariser, nil)
		if err != nil {
			t.Fatalf("New(%+v): %v", tt.cfg, err)
		}
		if out := compact(t, c, long); !tt.check(out) {
			t.Errorf("New(%+v): output %s, want it %s", tt.cfg, render(out), tt.what)
		}
	}
}

func TestNewRejects(t *testing.T) {
	if _, err := New(Config{Strategy: "summarize"}, nil, nil); err == nil || !strings.Contains(err.Error(), "compaction.strategy") {
		t.Errorf("New(summarize, no provider) = %v, want an error naming compaction.strategy", err)
	}
	if _, err := New(Config{Strategy: "lru"}, nil, nil); err == nil {
		t.Error("New(unknown strategy) = nil error")
	}
}
