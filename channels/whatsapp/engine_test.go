package whatsapp

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/wait"
	"go.mau.fi/whatsmeow/types/events"
)

// The whatsmeow handler only stores input, under the real engine: with the
// provider stuck on the first chat's turn it keeps accepting another chat's
// message, never sends from the receive path, and each reply goes out
// through Send once the provider answers.
func TestHandlerOnlyStoresWhileTurnsRun(t *testing.T) {
	f := newFakeClient()
	a, _ := testAdapter(Config{}, nil, openFake(f))
	eng, prov := withEngine(t, a)
	release := prov.Block()
	t.Cleanup(release)
	listen(t, a, eng.Handle)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)

	if !acked(t, f, live(dm("A1", alicePN, text("first chat")))) {
		t.Fatal("handler did not ack")
	}
	wait.Eventually(t, "the first turn reaches the provider", func() bool { return len(prov.Requests()) == 1 })
	if !acked(t, f, live(dm("B1", bobLID, text("second chat")))) {
		t.Fatal("handler did not ack while a turn is stuck on the provider")
	}
	wait.Eventually(t, "the second chat's turn reaches the provider", func() bool { return len(prov.Requests()) == 2 })
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

// live makes e a message sent now, not backlog.
func live(e *events.Message) *events.Message {
	e.Info.Timestamp = time.Now()
	return e
}
