package convo

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
)

// outcomes records what the engine reports of broadcast replies.
type outcomes struct {
	mu  sync.Mutex
	got map[string]error // broadcast tag → outcome
}

func (o *outcomes) Watch(ctx context.Context, _ botgw.Outbound) (context.Context, context.CancelFunc) {
	return ctx, func() {}
}

func (o *outcomes) Sent(_ context.Context, m botgw.Outbound, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for tag := range strings.FieldsSeq(m.Meta[botgw.MetaBroadcast]) {
		o.got[tag] = err
	}
}

func (o *outcomes) snapshot() map[string]error {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make(map[string]error, len(o.got))
	for k, v := range o.got {
		out[k] = v
	}
	return out
}

// TestBroadcastToAPausedChatIsHeld: while an operator holds a chat, a
// broadcast message is not sent and not put in the history (the player
// never saw it); it waits in the dead letters and its item is settled as
// failed, so the broadcast finishes. A broadcast event asking for a reply
// is stored and settled the same way, without a model call. Retrying the
// dead letter sends it, pause or not, without settling its item twice.
func TestBroadcastToAPausedChatIsHeld(t *testing.T) {
	st := openStore(t, false, fastStore)
	rec := &outcomes{got: map[string]error{}}
	r := newRig(t, st, fake.New(), Config{}, func(e *Engine) { e.deps.Outgoing = rec })
	op := &operator.API{Store: st, Deliver: r.eng.Handle}
	ctx := context.Background()
	r.say(t, testChat, "m1", "hello")
	r.ch.Wait(t, 1, 5*time.Second)
	if _, err := op.Pause(ctx, testChat, 0, "admin-api"); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, "the pause committed", func() bool { return !decoded(t, st, testChat).PausedUntil.IsZero() })

	const final = "The final round starts in 10 minutes"
	for _, in := range []botgw.Inbound{
		{Chat: testChat, Kind: botgw.KindSay, ID: "bc:final:0", Text: final, Meta: map[string]string{botgw.MetaBroadcast: "final#0"}},
		{Chat: testChat, Kind: botgw.KindEvent, ID: "bc:round:0", Meta: map[string]string{botgw.MetaBroadcast: "round#0"},
			Event: &botgw.Event{Text: "Round two has begun", Respond: true}},
	} {
		if err := r.eng.Handle(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	wait.Eventually(t, "both broadcast items settled", func() bool { return len(rec.snapshot()) == 2 })
	for tag, err := range rec.snapshot() {
		if err == nil || !strings.Contains(err.Error(), "paused") {
			t.Errorf("item %s settled with %v, want held because the chat is paused", tag, err)
		}
	}
	if n := len(r.ch.Sent()); n != 1 {
		t.Errorf("%d messages sent, want 1 (nothing while paused)", n)
	}
	if n := len(r.prov.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1 (none for the paused chat's event)", n)
	}
	h := decoded(t, st, testChat).History
	if hasText(h, botgw.RoleAssistant, final) {
		t.Error("the held broadcast message is in the history as said to the player")
	}
	dls, _, err := st.ListDeadLetters(ctx, "", 10)
	if err != nil || len(dls) != 1 || dls[0].Text != final || !strings.Contains(dls[0].Reason, "paused") {
		t.Fatalf("dead letters = %+v, %v; want the held broadcast message", dls, err)
	}

	if err := op.RetryDeadLetter(ctx, dls[0].ID, "admin-api"); err != nil {
		t.Fatal(err)
	}
	if sent := r.ch.Wait(t, 2, 5*time.Second); sent[1].Text != final {
		t.Errorf("retry sent %q, want the held message", sent[1].Text)
	}
	if err := rec.snapshot()["final#0"]; err == nil {
		t.Error("the retried item was settled a second time")
	}
}
