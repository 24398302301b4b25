package convo

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/compaction"
	"github.com/botgw/botgw/convo/codec"
	"github.com/botgw/botgw/providers/fake"
)

// A hundred turns under a 2000-token budget: every request fits, the
// player's latest location is always there, and the stored state stays
// bounded.
func TestHundredTurnsStayWithinTheBudget(t *testing.T) {
	st := openStore(t, false, fastStore)
	prov := fake.New()
	counter := compaction.NewCounter("gpt-4o")
	r := newRig(t, st, prov, Config{}, func(e *Engine) {
		e.deps.Compactor = compaction.TokenBudget(2000, counter)
		e.deps.Count = func(h []botgw.Message) int { return compaction.CountMessages(counter, h) }
	})
	ctx := context.Background()
	maxSize, location, asked := 0, "", 0
	for i := range 100 {
		if i%10 == 0 {
			location = fmt.Sprintf("User is at checkpoint %d", i/10)
			if err := r.eng.Handle(ctx, event(testChat, fmt.Sprint("loc", i), "location", location, false)); err != nil {
				t.Fatal(err)
			}
		}
		r.say(t, testChat, msgID(i), fmt.Sprintf("turn %d: %s", i, strings.Repeat("tell me about the old town hall ", 8)))
		r.ch.Wait(t, i+1, 5*time.Second)
		reqs := prov.Requests() // a turn asked again (its lease lost under load) adds one
		for _, req := range reqs[asked:] {
			if n := compaction.CountMessages(counter, req.Messages); n > 2000 {
				t.Fatalf("turn %d: request holds %d tokens, budget 2000", i, n)
			}
		}
		asked = len(reqs)
		if !hasEvent(reqs[asked-1].Messages, location) {
			t.Fatalf("turn %d: the latest location %q is missing from the request", i, location)
		}
		info, err := st.Info(ctx, testChat)
		if err != nil {
			t.Fatal(err)
		}
		maxSize = max(maxSize, len(info.Blob))
	}
	d, _ := codec.Inspect(mustInfo(t, st).Blob)
	if d.Compaction.Count == 0 || d.Compaction.TokensAfter > 2000 {
		t.Errorf("compaction record = %+v", d.Compaction)
	}
	if maxSize > 16<<10 {
		t.Errorf("stored state grew to %d bytes", maxSize)
	}
	t.Logf("largest stored state over 100 turns: %d bytes (compressed); compactions: %d", maxSize, d.Compaction.Count)

	r.say(t, testChat, "status", "/status")
	status := r.ch.Wait(t, 101, 5*time.Second)[100].Text
	want := fmt.Sprintf("Compactions: %d (last ", d.Compaction.Count)
	if !strings.Contains(status, want) || !strings.Contains(status, fmt.Sprintf("%d → %d tokens", d.Compaction.TokensBefore, d.Compaction.TokensAfter)) {
		t.Errorf("/status = %q, want the compaction count, time and tokens before → after", status)
	}
}

func hasEvent(h []botgw.Message, text string) bool {
	for _, m := range h {
		if m.Role == botgw.RoleEvent && m.Text == text {
			return true
		}
	}
	return false
}

func mustInfo(t *testing.T, st botgw.Store) botgw.ChatInfo {
	t.Helper()
	info, err := st.Info(context.Background(), testChat)
	if err != nil {
		t.Fatal(err)
	}
	return info
}
