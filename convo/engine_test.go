package convo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/codec"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
)

func TestTenTurnsKeepTheWholeConversation(t *testing.T) {
	r := newRig(t, openStore(t, false, fastStore), fake.New(), Config{})
	for i := range 10 {
		r.say(t, testChat, msgID(i), fmt.Sprintf("message %d", i))
		r.ch.Wait(t, i+1, 5*time.Second)
	}
	reqs := r.prov.Requests()
	last := reqs[len(reqs)-1]
	if last.System != "You are a test assistant." {
		t.Errorf("system prompt = %q", last.System)
	}
	if len(last.Messages) != 19 {
		t.Fatalf("10th request has %d messages, want 19 (10 user, 9 assistant)", len(last.Messages))
	}
	for i, m := range last.Messages {
		want := botgw.RoleUser
		if i%2 == 1 {
			want = botgw.RoleAssistant
		}
		if m.Role != want {
			t.Fatalf("message %d role %s, want %s", i, m.Role, want)
		}
		if want == botgw.RoleUser && m.Text != fmt.Sprintf("message %d", i/2) {
			t.Errorf("message %d = %q, out of order", i, m.Text)
		}
	}
	if got := r.ch.Sent()[9].Text; !strings.Contains(got, "message 9") {
		t.Errorf("10th reply does not echo the 10th message: %q", got)
	}
}

func TestBurstOfMessagesIsOneTurn(t *testing.T) {
	prov := fake.New()
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	release := prov.Block()
	r.say(t, testChat, "a", "first")
	wait.Eventually(t, "the condition", func() bool { return len(prov.Requests()) == 1 })
	for i, text := range []string{"I'm at", "the theatre", "now"} {
		r.say(t, testChat, fmt.Sprint("b", i), text)
	}
	release()
	sent := r.ch.Wait(t, 2, 5*time.Second)
	reqs := prov.Requests()
	if len(reqs) != 2 || len(sent) != 2 {
		t.Fatalf("%d provider calls and %d replies, want 2 each (the burst is one turn)", len(reqs), len(sent))
	}
	lastMsg := reqs[1].Messages[len(reqs[1].Messages)-1]
	if lastMsg.Text != "I'm at\nthe theatre\nnow" {
		t.Errorf("burst turn user text = %q", lastMsg.Text)
	}
}

func TestProviderFailureApologisesAndKeepsTheMessage(t *testing.T) {
	boom := &botgw.ProviderError{Provider: fake.ID, Status: 500, Err: errors.New("server error")}
	prov := fake.New(fake.Step{Err: boom})
	st := openStore(t, false, fastStore)
	r := newRig(t, st, prov, Config{Apology: "Sorry, try again."})
	r.say(t, testChat, "1", "where is the theatre?")
	if got := r.ch.Wait(t, 1, 5*time.Second)[0].Text; got != "Sorry, try again." {
		t.Fatalf("reply = %q, want the apology", got)
	}
	r.say(t, testChat, "2", "hello?")
	r.ch.Wait(t, 2, 5*time.Second)
	req := prov.Requests()[1]
	if got := userTexts(req.Messages); !slices.Equal(got, []string{"where is the theatre?", "hello?"}) {
		t.Errorf("second request's user messages = %q: the failed turn's message was lost", got)
	}
}

// TestTurnDeadlineApologisesAndKeepsTheMessage: a model that never answers
// is cut off at the turn's deadline; the player gets the apology, and the
// message is in the history the next turn sends.
func TestTurnDeadlineApologisesAndKeepsTheMessage(t *testing.T) {
	prov := fake.New()
	st := openStore(t, false, fastStore)
	r := newRig(t, st, prov, Config{Apology: "Sorry, try again.", TurnTimeout: 200 * time.Millisecond})
	release := prov.Block()
	r.say(t, testChat, "1", "are you there?")
	if got := r.ch.Wait(t, 1, 5*time.Second)[0].Text; got != "Sorry, try again." {
		t.Fatalf("reply = %q, want the apology once the deadline passed", got)
	}
	release()
	r.say(t, testChat, "2", "hello?")
	r.ch.Wait(t, 2, 5*time.Second)
	if got := userTexts(prov.Requests()[1].Messages); !slices.Equal(got, []string{"are you there?", "hello?"}) {
		t.Errorf("second request's user messages = %q: the timed-out turn's message was lost", got)
	}
	if !strings.Contains(r.logs.String(), "deadline") {
		t.Errorf("the log does not say the turn hit its deadline:\n%s", r.logs)
	}
}

func TestUnreadableStateStartsFresh(t *testing.T) {
	other, _ := codec.Encode(&codec.Envelope{V: codec.FormatVersion, Provider: "openai/gpt-4o"})
	future, _ := codec.Encode(&codec.Envelope{V: codec.FormatVersion + 1})
	for _, tc := range []struct {
		name, reason string
		blob         []byte
	}{
		{"corrupt", "corrupt", []byte("not zstd at all")},
		{"future version", "unknown_version", future},
		{"another provider", "provider_changed", other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t, false, fastStore)
			putBlob(t, st, testChat, tc.blob)
			r := newRig(t, st, fake.New(), Config{})
			r.say(t, testChat, "1", "hi")
			if got := r.ch.Wait(t, 1, 5*time.Second)[0].Text; strings.Contains(got, "Sorry") {
				t.Fatalf("user saw an error: %q", got)
			}
			if n := strings.Count(r.logs.String(), "reason="+tc.reason); n != 1 {
				t.Errorf("%d log lines name reason %s, want 1:\n%s", n, tc.reason, r.logs)
			}
			if got := userTexts(history(t, st, testChat)); !slices.Equal(got, []string{"hi"}) {
				t.Errorf("history after fresh start = %q", got)
			}
		})
	}
}

// putBlob stores a raw state blob for k, as a turn would.
func putBlob(t *testing.T, st botgw.Store, k botgw.ChatKey, blob []byte) {
	t.Helper()
	ctx := context.Background()
	snap, err := st.Begin(ctx, k, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(ctx, k, botgw.Commit{Lease: snap.Lease, Version: snap.Version, Blob: blob, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if err := st.Release(ctx, k, snap.Lease); err != nil {
		t.Fatal(err)
	}
}

// standby is a channel whose session another replica holds.
type standby struct {
	botgw.Channel
	holding atomic.Bool
	asked   atomic.Int32 // how often the engine asked whether it holds the session
}

func (s *standby) Holding() bool { s.asked.Add(1); return s.holding.Load() }

func TestTurnsRunOnlyWhereTheSessionIsHeld(t *testing.T) {
	st := openStore(t, false, fastStore)
	sb := &standby{}
	r := newRig(t, st, fake.New(), Config{}, sendThrough(func(ch botgw.Channel) botgw.Channel {
		sb.Channel = ch
		return sb
	}))
	r.say(t, testChat, "1", "hello")
	// the worker and then the poller each asked and were told no
	wait.Eventually(t, "the condition", func() bool { return sb.asked.Load() >= 2 })
	if len(r.ch.Sent()) != 0 || len(r.prov.Requests()) != 0 {
		t.Fatal("a replica without the session ran the turn")
	}
	sb.holding.Store(true)
	r.ch.Wait(t, 1, 5*time.Second) // the poller finds the chat once its mark is due
}
