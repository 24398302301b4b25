package whatsapp

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state"
)

// fakeClock is a settable clock for the adapter.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// advance moves the clock on by d.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// withEngine runs a real engine (embedded Redis, scripted provider) with a
// as its WhatsApp channel, so a test sees what a player would receive.
func withEngine(t *testing.T, a *Adapter) (*convo.Engine, *fake.Provider) {
	t.Helper()
	st, err := state.Open(context.Background(), state.Config{}, state.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	prov := fake.New()
	eng, err := convo.New(convo.Config{SystemPrompt: "You are a game's assistant.", StateTTL: time.Hour},
		convo.Deps{Store: st, Provider: prov, Channels: map[string]botgw.Channel{Name: a}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = eng.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = eng.Close(context.Background())
		st.Close()
	})
	return eng, prov
}

// backlogged is a direct message from alice sent at.
func backlogged(id string, at time.Time, s string) *events.Message {
	e := dm(id, alicePN, text(s))
	e.Info.Timestamp = at
	return e
}

// After an outage WhatsApp delivers 20 messages hours old: all are stored
// in the conversation, and the player gets one reply covering them, not
// twenty (or a burst). A live message afterwards is answered as usual.
func TestBacklogAnsweredByOneReply(t *testing.T) {
	clock := &fakeClock{now: sentAt.Add(3 * time.Hour)}
	f := newFakeClient()
	a, _ := testAdapter(Config{}, nil, openFake(f))
	a.clock = clock.Now
	eng, prov := withEngine(t, a)
	listen(t, a, eng.Handle)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)

	f.emit(t, &events.OfflineSyncPreview{Total: 20, Messages: 20})
	for i := range 20 {
		if !f.emit(t, backlogged(fmt.Sprintf("OLD%02d", i), sentAt.Add(time.Duration(i)*time.Minute), fmt.Sprintf("question %d", i))) {
			t.Fatalf("message %d not stored", i)
		}
	}
	f.emit(t, &events.OfflineSyncCompleted{Count: 20})
	wait.Eventually(t, "the backlog's reply", func() bool { return len(f.sentTexts()) >= 1 })

	f.emit(t, backlogged("LIVE", clock.Now(), "and now?"))
	wait.Eventually(t, "the live reply", func() bool { return len(f.sentTexts()) >= 2 })
	if sent := f.sentTexts(); len(sent) != 2 {
		t.Fatalf("sent %d messages, want one for the 20 old ones and one for the live one", len(sent))
	}
	reqs := prov.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	var seen strings.Builder
	for _, m := range reqs[0].Messages {
		seen.WriteString(m.Text + "\n")
	}
	for i := range 20 {
		if !strings.Contains(seen.String(), fmt.Sprintf("question %d\n", i)) {
			t.Fatalf("the backlog's turn did not see question %d:\n%s", i, seen.String())
		}
	}
	if !strings.Contains(seen.String(), "20 message(s)") {
		t.Errorf("the model was not told the messages are a backlog:\n%s", seen.String())
	}
}

// With backlog: ignore, old messages are stored and nothing is sent; the
// next live message is answered with them in the history.
func TestBacklogIgnoredIsStoredNotAnswered(t *testing.T) {
	clock := &fakeClock{now: sentAt.Add(time.Hour)}
	f := newFakeClient()
	a, _ := testAdapter(Config{Backlog: BacklogIgnore}, nil, openFake(f))
	a.clock = clock.Now
	eng, prov := withEngine(t, a)
	listen(t, a, eng.Handle)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	for i := range 3 {
		f.emit(t, backlogged(fmt.Sprintf("OLD%d", i), sentAt, fmt.Sprintf("old %d", i)))
	}
	f.emit(t, &events.OfflineSyncCompleted{Count: 3})
	f.emit(t, backlogged("LIVE", clock.Now(), "hello"))
	wait.Eventually(t, "the live reply", func() bool { return len(f.sentTexts()) >= 1 })
	reqs := prov.Requests()
	if len(f.sentTexts()) != 1 || len(reqs) != 1 {
		t.Fatalf("sent %d, model calls %d; want one reply, to the live message", len(f.sentTexts()), len(reqs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1].Text
	if !strings.Contains(last, "hello") {
		t.Errorf("last message to the model %q, want the live one", last)
	}
	all := fmt.Sprint(reqs[0].Messages)
	if !strings.Contains(all, "old 2") {
		t.Errorf("old messages not in the history: %s", all)
	}
}
