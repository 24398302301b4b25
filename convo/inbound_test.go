package convo

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/fake"
)

// Input that can never be stored (a chat id with braces or a newline) is
// acknowledged, counted as ignored and logged with the reason, so the
// platform stops redelivering it; a forged timestamp outside years
// 0–9999 is replaced by the arrival time and the message answered.
func TestPoisonInputIsAcknowledged(t *testing.T) {
	var (
		mu       sync.Mutex
		outcomes []string
	)
	r := newRig(t, openStore(t, false, fastStore), fake.New(), Config{}, func(e *Engine) {
		e.deps.Hooks.Inbound = func(_, outcome string) {
			mu.Lock()
			defer mu.Unlock()
			outcomes = append(outcomes, outcome)
		}
	})
	for _, id := range []string{"C{1}", "C}", "C1\nC2"} {
		in := botgw.Inbound{Chat: botgw.ChatKey{Channel: "test", ID: id}, ID: "p-" + id, Text: "poison"}
		if err := r.eng.Handle(context.Background(), in); err != nil {
			t.Errorf("Handle(chat id %q) = %v, want nil: retrying can never store it", id, err)
		}
	}
	future := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, at := range []time.Time{future, time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)} {
		in := botgw.Inbound{Chat: testChat, ID: msgID(i), Text: "hello", At: at}
		if err := r.eng.Handle(context.Background(), in); err != nil {
			t.Errorf("Handle(at %v) = %v, want nil", at, err)
		}
	}
	r.ch.Wait(t, 1, 5*time.Second)
	mu.Lock()
	got := strings.Join(outcomes, " ")
	mu.Unlock()
	if want := "ignored ignored ignored accepted accepted"; got != want {
		t.Errorf("inbound outcomes %q, want %q", got, want)
	}
	if logs := r.logs.String(); strings.Count(logs, "can never be stored") != 3 || !strings.Contains(logs, "reason=") {
		t.Errorf("want one log line with a reason per ignored input, got:\n%s", logs)
	}
}
