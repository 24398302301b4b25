package convo

import (
	"context"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
)

// TestWaitingChannelSpendsNoDeliveryRound: a channel that cannot send for
// now (a banned or disconnected WhatsApp number says so with
// PlatformError.Waiting) keeps the reply in the outbox however many
// rounds pass, and it is delivered once when the channel is back.
func TestWaitingChannelSpendsNoDeliveryRound(t *testing.T) {
	st := openStore(t, false, fastStore)
	ch := &refusingChannel{broken: true, waiting: "number_held"}
	eng, _ := newDeadRig(t, st, ch, Config{DeliveryAttempts: 1})
	if err := eng.Handle(context.Background(), botgw.Inbound{Chat: testChat, ID: "m1", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, "three delivery rounds", func() bool {
		ch.mu.Lock()
		defer ch.mu.Unlock()
		return ch.calls >= 3
	})
	if d := deadList(t, st); len(d) != 0 {
		t.Fatalf("dead letters while the channel waits: %+v", d)
	}
	ch.fix()
	wait.Eventually(t, "the reply delivered", func() bool { return len(ch.got()) == 1 })
	wait.Eventually(t, "the outbox emptied", func() bool {
		info, err := st.Info(context.Background(), testChat)
		return err == nil && info.Outbox == 0
	})
	if n := len(ch.got()); n != 1 || len(deadList(t, st)) != 0 {
		t.Errorf("sent %d times, dead letters %d; want once and none", n, len(deadList(t, st)))
	}
}
