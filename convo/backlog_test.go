package convo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
)

// Backlog input (old messages an adapter delivers after an outage) is
// stored in the history without a model call or a reply; the event that
// asks for a reply gets one reply covering it, under its own outbox id.
func TestBacklogStoredThenAnsweredOnce(t *testing.T) {
	r := newRig(t, openStore(t, false, fastStore), fake.New(fake.Step{Text: "sorry for the wait: all answered"}), Config{})
	ctx := context.Background()
	for _, id := range []string{"old1", "old2"} {
		in := botgw.Inbound{Chat: testChat, Kind: botgw.KindText, ID: id, Text: "question " + id, Backlog: true}
		if err := r.eng.Handle(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	wait.Eventually(t, "the condition", func() bool {
		info, err := r.store.Info(ctx, testChat)
		return err == nil && info.Blob != nil && strings.Count(strings.Join(userTextsOf(t, r), "\n"), "question") == 2
	})
	if n := len(r.prov.Requests()); n != 0 || len(r.ch.Sent()) != 0 {
		t.Fatalf("backlog alone: %d model calls, %d sent; want none", n, len(r.ch.Sent()))
	}
	ask := botgw.Inbound{Chat: testChat, Kind: botgw.KindEvent, ID: "backlog-old2",
		Event: &botgw.Event{ID: "backlog-old2", Text: "answer the late messages", Respond: true}}
	if err := r.eng.Handle(ctx, ask); err != nil {
		t.Fatal(err)
	}
	sent := r.ch.Wait(t, 1, 10*time.Second)
	if sent[0].ID != "re-backlog-old2" {
		t.Errorf("reply id %q, want one named after the event", sent[0].ID)
	}
	var seen []string
	for _, m := range r.prov.Requests()[0].Messages {
		seen = append(seen, m.Text)
	}
	if all := strings.Join(seen, "\n"); !strings.Contains(all, "question old1") || !strings.Contains(all, "question old2") {
		t.Errorf("the model did not see the backlog: %q", all)
	}
}

func userTextsOf(t *testing.T, r *rig) []string { return userTexts(history(t, r.store, testChat)) }
