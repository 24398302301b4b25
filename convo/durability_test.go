package convo

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/state/redistest"
)

// openShared opens n stores (n replicas) on one real Redis under one prefix.
func openShared(t *testing.T, n int, opts state.Options) []*state.Store {
	t.Helper()
	url := redistest.URL(t)
	cfg := state.Config{URL: url, KeyPrefix: "botgwtest-" + randomHex()}
	var out []*state.Store
	for range n {
		st, err := state.Open(context.Background(), cfg, opts, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, st)
	}
	t.Cleanup(func() {
		cleanPrefix(out[0], cfg.KeyPrefix)
		for _, st := range out {
			st.Close()
		}
	})
	return out
}

// stop closes a rig's engine at once, as a crash would (turns cancelled).
func (r *rig) stop() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = r.eng.Close(ctx)
}

func TestPendingInputSurvivesARestart(t *testing.T) {
	stores := openShared(t, 2, fastStore)
	prov1 := fake.New()
	prov1.Block() // never answers: the first engine dies mid-turn
	r1 := newRig(t, stores[0], prov1, Config{})
	r1.say(t, testChat, "1", "remember me")
	wait.Eventually(t, "the condition", func() bool { return len(prov1.Requests()) == 1 })
	r1.stop()

	r2 := newRig(t, stores[1], fake.New(), Config{})
	r2.ch.Wait(t, 1, 10*time.Second)
	if got := userTexts(history(t, stores[1], testChat)); !slices.Equal(got, []string{"remember me"}) {
		t.Errorf("history after restart = %q, want the message once", got)
	}
}

func TestCommittedReplyIsDeliveredAfterARestart(t *testing.T) {
	stores := openShared(t, 2, fastStore)
	r1 := newRig(t, stores[0], fake.New(), Config{})
	r1.ch.FailNext(1000) // the platform is down for the first replica
	r1.say(t, testChat, "1", "hello")
	wait.Eventually(t, "the condition", func() bool {
		info, err := stores[0].Info(context.Background(), testChat)
		return err == nil && info.Version == 1 && info.Outbox == 1
	})
	r1.stop()

	r2 := newRig(t, stores[1], fake.New(), Config{})
	sent := r2.ch.Wait(t, 1, 10*time.Second)
	settled(t, stores[1], testChat) // a duplicate delivery would have happened by now
	if len(r2.ch.Sent()) != 1 || sent[0].ID != "re-1" {
		t.Fatalf("after restart sent %v, want the one committed reply", r2.ch.Sent())
	}
	if got := userTexts(history(t, stores[1], testChat)); !slices.Equal(got, []string{"hello"}) {
		t.Errorf("history = %q: the turn ran twice", got)
	}
}

func TestTwoReplicasKeepOneChatInOrder(t *testing.T) {
	stores := openShared(t, 2, fastStore)
	a := newRig(t, stores[0], fake.New(), Config{})
	b := newRig(t, stores[1], fake.New(), Config{})
	var want []string
	for i := range 50 {
		text := fmt.Sprintf("message %02d", i)
		want = append(want, text)
		r := a
		if i%2 == 1 {
			r = b
		}
		r.say(t, testChat, msgID(i), text)
	}
	wait.Eventually(t, "the condition", func() bool {
		info, err := stores[0].Info(context.Background(), testChat)
		return err == nil && info.Pending == 0 && info.Outbox == 0 && info.Version > 0
	})
	var got []string
	for _, text := range userTexts(history(t, stores[0], testChat)) {
		got = append(got, splitLines(text)...)
	}
	if !slices.Equal(got, want) {
		t.Errorf("history holds %d user lines, want all 50 in order, each once:\n%q", len(got), got)
	}
}

func splitLines(s string) []string { return strings.Split(s, "\n") }

func TestIdleChatExpires(t *testing.T) {
	stores := openShared(t, 1, fastStore)
	prov := fake.New()
	r := newRig(t, stores[0], prov, Config{StateTTL: time.Second})
	r.say(t, testChat, "1", "first")
	r.ch.Wait(t, 1, 5*time.Second)
	expired(t, stores[0], testChat)
	r.say(t, testChat, "2", "second")
	r.ch.Wait(t, 2, 5*time.Second)
	if got := userTexts(prov.Requests()[1].Messages); !slices.Equal(got, []string{"second"}) {
		t.Errorf("after 2 s idle with ttl 1s the request holds %q, want a fresh conversation", got)
	}
}
