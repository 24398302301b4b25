package whatsapp

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state"
)

// The whatsmeow handler only stores input, under the real engine: with the
// provider stuck on the first chat's turn it keeps accepting another chat's
// message, never sends from the receive path, and each reply goes out
// through Send once the provider answers.
func TestHandlerOnlyStoresWhileTurnsRun(t *testing.T) {
	f := newFakeClient()
	a, _ := testAdapter(Config{}, nil, openFake(f))
	st, err := state.Open(context.Background(), state.Config{}, state.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	prov := fake.New()
	release := prov.Block()
	eng, err := convo.New(convo.Config{SystemPrompt: "test"}, convo.Deps{Store: st, Provider: prov,
		Channels: map[string]botgw.Channel{Name: a}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go eng.Run(ctx)
	t.Cleanup(func() {
		release()
		cancel()
		closeCtx, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = eng.Close(closeCtx)
	})
	listen(t, a, eng.Handle)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)

	if !acked(t, f, dm("A1", alicePN, text("first chat"))) {
		t.Fatal("handler did not ack")
	}
	eventually(t, "the first turn reaches the provider", func() bool { return len(prov.Requests()) == 1 })
	if !acked(t, f, dm("B1", bobLID, text("second chat"))) {
		t.Fatal("handler did not ack while a turn is stuck on the provider")
	}
	eventually(t, "the second chat's turn reaches the provider", func() bool { return len(prov.Requests()) == 2 })
	if sent := f.sentTexts(); len(sent) != 0 {
		t.Fatalf("sent %q before the provider answered", sent)
	}
	release()
	f.waitCall(t, "send")
	f.waitCall(t, "send")
	sent := f.sentTexts()
	if len(sent) != 2 || !slices.ContainsFunc(sent, func(s string) bool { return strings.Contains(s, "first chat") }) ||
		!slices.ContainsFunc(sent, func(s string) bool { return strings.Contains(s, "second chat") }) {
		t.Errorf("sent %q, want one reply to each chat once the provider answered", sent)
	}
}

// acked hands evt to the whatsmeow handler and reports its ack; it fails the
// test when the handler does not return within 10s (it waits on a turn).
func acked(t *testing.T, f *fakeClient, evt any) bool {
	t.Helper()
	ack := make(chan bool, 1)
	go func() { ack <- f.emit(t, evt) }()
	select {
	case ok := <-ack:
		return ok
	case <-time.After(10 * time.Second):
		t.Fatal("the handler did not return within 10s: it waits on a turn")
		return false
	}
}
