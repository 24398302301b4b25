package broadcast

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/convo/codec"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state"
)

type rig struct {
	st     *state.Store
	prov   *fake.Provider
	runner *Runner
	eng    *convo.Engine
}

var _ Store = state.Broadcasts{} // the store the gateway runs on

func newRig(t *testing.T, ch botgw.Channel) *rig {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := state.Open(ctx, state.Config{}, state.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{st: st, prov: fake.New(), runner: &Runner{Store: st.Broadcasts(), Poll: 20 * time.Millisecond}}
	r.eng, err = convo.New(convo.Config{SystemPrompt: "test", PollInterval: 50 * time.Millisecond},
		convo.Deps{Store: st, Provider: r.prov, Channels: map[string]botgw.Channel{ch.Name(): ch}, Outgoing: r.runner})
	if err != nil {
		t.Fatal(err)
	}
	r.runner.Deliver = r.eng.Handle
	go r.eng.Run(ctx)
	go r.runner.Run(ctx)
	t.Cleanup(func() {
		cancel()
		c, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = r.eng.Close(c)
		st.Close()
	})
	return r
}

func (r *rig) wait(t *testing.T, id string, cond func(Progress) bool) Progress {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		p, err := r.runner.Progress(context.Background(), id)
		if err == nil && cond(p.(Progress)) {
			return p.(Progress)
		}
		time.Sleep(20 * time.Millisecond)
	}
	p, err := r.runner.Progress(context.Background(), id)
	t.Fatalf("broadcast %s: progress %+v (%v) never met the condition", id, p, err)
	return Progress{}
}

func chats(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("test:p%d", i)
	}
	return out
}

// A message goes to every chat verbatim without the model, is stored as
// the assistant's message, and the broadcast finishes with every item done;
// posting the same id again sends nothing more.
func TestMessageIsSentVerbatimAndStoredAsTheAssistants(t *testing.T) {
	ch := channeltest.NewRecorder("test")
	r := newRig(t, ch)
	ctx := context.Background()
	if _, err := r.runner.Create(ctx, "b1", chats(5), "Final round in **10** minutes", botgw.Event{}); err != nil {
		t.Fatal(err)
	}
	p := r.wait(t, "b1", func(p Progress) bool { return p.State == botgw.BroadcastFinished })
	if p.Done != 5 || p.Pending != 0 || p.FinishedAt == nil {
		t.Errorf("progress %+v, want 5 done and finished", p)
	}
	sent := ch.Sent()
	if len(sent) != 5 || sent[0].Text != "Final round in **10** minutes" {
		t.Fatalf("sent %+v, want the text verbatim to 5 chats", sent)
	}
	if n := len(r.prov.Requests()); n != 0 {
		t.Errorf("the model was called %d times for a message broadcast", n)
	}
	info, err := r.st.Info(ctx, botgw.ChatKey{Channel: "test", ID: "p3"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := codec.Inspect(info.Blob)
	if err != nil || len(d.History) != 1 || d.History[0].Role != botgw.RoleAssistant || d.History[0].Text != "Final round in **10** minutes" {
		t.Errorf("history %+v (%v), want the message as the assistant's", d.History, err)
	}
	// Finishing sets the state, then takes the id off the running list (a
	// key in another cluster slot): wait for both before posting again.
	running := func() bool {
		ids, err := r.st.Broadcasts().Running(ctx)
		return err != nil || slices.Contains(ids, "b1")
	}
	for deadline := time.Now().Add(5 * time.Second); running(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a finished broadcast stayed on the running list for 5s")
		}
	}
	if total, err := r.runner.Create(ctx, "b1", chats(5), "again", botgw.Event{}); err != nil || total != 5 {
		t.Fatalf("re-POST: %d, %v", total, err)
	}
	if ids, err := r.st.Broadcasts().Running(ctx); err != nil || slices.Contains(ids, "b1") {
		t.Errorf("running after a re-POST of a finished broadcast: %v (%v)", ids, err)
	}
	time.Sleep(200 * time.Millisecond) // the runner polls every 20 ms: ten rounds
	if n := len(ch.Sent()); n != 5 {
		t.Errorf("%d sends after re-posting the same id, want still 5", n)
	}
}

// An event with respond gets the model's reply in each chat; the item is
// done once that reply was delivered.
func TestEventWithRespondIsDoneWhenTheReplyIsDelivered(t *testing.T) {
	ch := channeltest.NewRecorder("test")
	r := newRig(t, ch)
	if _, err := r.runner.Create(context.Background(), "b2", chats(3), "", botgw.Event{Text: "Round 2", Key: "round", Respond: true}); err != nil {
		t.Fatal(err)
	}
	p := r.wait(t, "b2", func(p Progress) bool { return p.State == botgw.BroadcastFinished })
	if p.Done != 3 || len(ch.Sent()) != 3 || len(r.prov.Requests()) != 3 {
		t.Errorf("progress %+v, %d sends, %d model calls; want 3 of each", p, len(ch.Sent()), len(r.prov.Requests()))
	}
}

// blockingChannel never gets a send slot: Send waits until its context ends.
type blockingChannel struct {
	mu      sync.Mutex
	waiting int
}

func (b *blockingChannel) Name() string { return "test" }
func (b *blockingChannel) Send(ctx context.Context, m botgw.Outbound) error {
	b.mu.Lock()
	b.waiting++
	b.mu.Unlock()
	<-ctx.Done()
	return &botgw.PlatformError{Channel: "test", Err: ctx.Err()}
}

func (b *blockingChannel) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiting
}

// Cancelling stops replies already waiting for their send slot: they are
// dropped unsent and counted as cancelled, nothing stays pending.
func TestCancelStopsRepliesWaitingForTheirSlot(t *testing.T) {
	ch := &blockingChannel{}
	r := newRig(t, ch)
	ctx := context.Background()
	if _, err := r.runner.Create(ctx, "b3", chats(4), "hello", botgw.Event{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for ch.count() < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := r.runner.Cancel(ctx, "b3"); err != nil {
		t.Fatal(err)
	}
	p := r.wait(t, "b3", func(p Progress) bool { return p.Cancelled == 4 })
	if p.State != botgw.BroadcastCancelled || p.Pending != 0 || p.Done != 0 {
		t.Errorf("progress %+v, want 4 cancelled, none pending or done", p)
	}
}
