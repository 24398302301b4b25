package convo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state"
)

func hasText(h []botgw.Message, role botgw.Role, text string) bool {
	return slices.ContainsFunc(h, func(m botgw.Message) bool { return m.Role == role && strings.Contains(m.Text, text) })
}

func TestTakeoverAcrossTwoReplicas(t *testing.T) {
	for _, real := range []bool{false, true} {
		t.Run(map[bool]string{false: "embedded", true: "redis"}[real], func(t *testing.T) {
			testTakeover(t, openStore(t, real, fastStore))
		})
	}
}

// testTakeover pauses a chat through replica A while the player writes
// through replica B: the paused-time message is stored, no model is asked
// and nothing is sent; the operator's words go out; after resume the model
// sees the paused-time message, the operator's words, then the new one.
// Either replica may run any of the chat's turns (a message handled by one
// can be claimed by the other's poll), so sends and model calls are
// counted over both.
func testTakeover(t *testing.T, st *state.Store) {
	a := newRig(t, st, fake.New(), Config{})
	b := newRig(t, st, fake.New(), Config{})
	op := &operator.API{Store: st, Deliver: a.eng.Handle}
	ctx := context.Background()
	b.say(t, testChat, "m1", "hello")
	sentByEither(t, 1, a, b)

	until, err := op.Pause(ctx, testChat, 0, "admin-api")
	if err != nil || until.Sub(time.Now()) < 29*time.Minute {
		t.Fatalf("pause: until %v, err %v; want about 30m from now", until, err)
	}
	wait.Eventually(t, "the pause committed", func() bool { return !decoded(t, st, testChat).PausedUntil.IsZero() })
	b.say(t, testChat, "m2", "I am stuck at the bridge")
	wait.Eventually(t, "the paused-time message stored", func() bool {
		return hasText(decoded(t, st, testChat).History, botgw.RoleUser, "stuck at the bridge")
	})
	if n := len(a.prov.Requests()) + len(b.prov.Requests()); n != 1 {
		t.Fatalf("model calls = %d after the paused-time message, want 1 (only before the pause)", n)
	}
	if err := op.Say(ctx, testChat, "Hi, Sam from support here: take the left path.", botgw.Offer{}, "Sam", "admin-api"); err != nil {
		t.Fatal(err)
	}
	sent := sentByEither(t, 2, a, b)
	if !slices.ContainsFunc(sent, func(m botgw.Outbound) bool { return m.Text == "Hi, Sam from support here: take the left path." }) {
		t.Errorf("sent %+v, want the operator's words among them", sent)
	}
	if err := op.Resume(ctx, testChat, "admin-api"); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, "the resume committed", func() bool { return decoded(t, st, testChat).PausedUntil.IsZero() })
	if got := len(a.ch.Sent()) + len(b.ch.Sent()); got != 2 {
		t.Errorf("the replicas sent %d messages, want 2 (the first answer and the operator's words; nothing while paused)", got)
	}
	b.say(t, testChat, "m3", "thanks, found it")
	sentByEither(t, 3, a, b)
	if n := len(a.prov.Requests()) + len(b.prov.Requests()); n != 2 {
		t.Fatalf("model calls = %d after resume, want 2", n)
	}
	reqs := append(a.prov.Requests(), b.prov.Requests()...)
	last := slices.IndexFunc(reqs, func(r botgw.Request) bool { return hasText(r.Messages, botgw.RoleUser, "thanks, found it") })
	if last < 0 {
		t.Fatalf("no model request carries the message sent after resume")
	}
	msgs := reqs[last].Messages
	tail := msgs[len(msgs)-3:]
	if tail[0].Role != botgw.RoleUser || !strings.Contains(tail[0].Text, "stuck at the bridge") ||
		tail[1].Role != botgw.RoleAssistant || tail[1].Operator != "Sam" || !strings.Contains(tail[1].Text, "left path") ||
		tail[2].Role != botgw.RoleUser || tail[2].Text != "thanks, found it" {
		t.Errorf("model's request after resume ends with %+v; want paused message, operator's words, new message", tail)
	}
}

// sentByEither waits until replicas a and b sent n messages between them
// and returns them, a's first.
func sentByEither(t *testing.T, n int, a, b *rig) []botgw.Outbound {
	t.Helper()
	wait.Eventually(t, fmt.Sprintf("%d messages sent by the two replicas", n), func() bool {
		return len(a.ch.Sent())+len(b.ch.Sent()) >= n
	})
	return append(a.ch.Sent(), b.ch.Sent()...)
}

// TestPauseEndsByItself: after paused_until the next message is answered.
func TestPauseEndsByItself(t *testing.T) {
	st := openStore(t, false, fastStore)
	clock := &offsetClock{}
	r := newRig(t, st, fake.New(), Config{}, withClock(clock))
	op := &operator.API{Store: st, Deliver: r.eng.Handle, TakeoverTTL: time.Hour}
	r.say(t, testChat, "m1", "hello")
	r.ch.Wait(t, 1, 5*time.Second)
	if _, err := op.Pause(context.Background(), testChat, 10*time.Minute, "cli"); err != nil {
		t.Fatal(err)
	}
	r.say(t, testChat, "m2", "anyone there?")
	wait.Eventually(t, "the paused-time message stored", func() bool {
		return hasText(decoded(t, st, testChat).History, botgw.RoleUser, "anyone there?")
	})
	if n := len(r.prov.Requests()); n != 1 {
		t.Fatalf("model calls while paused: %d, want 1", n)
	}
	clock.advance(11 * time.Minute)
	r.say(t, testChat, "m3", "hello again")
	r.ch.Wait(t, 2, 5*time.Second)
	if n := len(r.prov.Requests()); n != 2 {
		t.Errorf("model calls after the pause ran out: %d, want 2", n)
	}
	if d := decoded(t, st, testChat); !d.PausedUntil.IsZero() {
		t.Errorf("paused_until still stored after it passed: %v", d.PausedUntil)
	}
}

// TestPauseAndResumeInChat: an operator's /pause and /resume from their
// own chat; a player's /pause of another chat is refused.
func TestPauseAndResumeInChat(t *testing.T) {
	st := openStore(t, false, fastStore)
	prov := fake.New()
	r := newRig(t, st, prov, Config{Operators: map[string][]string{"test": {"op1"}}})
	player := botgw.ChatKey{Channel: "test", ID: "player9"}
	opChat := botgw.ChatKey{Channel: "test", ID: "ops"}
	r.say(t, player, "p1", "hi")
	r.ch.Wait(t, 1, 5*time.Second)
	send := func(k botgw.ChatKey, user, id, text string) {
		if err := r.eng.Handle(context.Background(), botgw.Inbound{Chat: k, ID: id, UserID: user, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	send(botgw.ChatKey{Channel: "test", ID: "other"}, "u2", "x1", "/pause test:player9 1h")
	sent := r.ch.Wait(t, 2, 5*time.Second)
	if !strings.Contains(sent[1].Text, "only operators") {
		t.Errorf("player's /pause answered %q, want a refusal", sent[1].Text)
	}
	send(opChat, "op1", "o1", "/pause test:player9 1h")
	sent = r.ch.Wait(t, 3, 5*time.Second)
	if !strings.Contains(sent[2].Text, "Paused test:player9 until") {
		t.Errorf("/pause answered %q", sent[2].Text)
	}
	wait.Eventually(t, "the pause committed", func() bool { return !decoded(t, st, player).PausedUntil.IsZero() })
	send(opChat, "op1", "o2", "/status test:player9")
	if sent = r.ch.Wait(t, 4, 5*time.Second); !strings.Contains(sent[3].Text, "Paused by an operator until") {
		t.Errorf("operator's /status answered %q, want the pause shown", sent[3].Text)
	}
	calls := len(prov.Requests())
	r.say(t, player, "p2", "hello?")
	wait.Eventually(t, "paused message stored", func() bool { return hasText(decoded(t, st, player).History, botgw.RoleUser, "hello?") })
	send(opChat, "op1", "o3", "/resume test:player9")
	r.ch.Wait(t, 5, 5*time.Second)
	wait.Eventually(t, "the resume committed", func() bool { return decoded(t, st, player).PausedUntil.IsZero() })
	if len(prov.Requests()) != calls {
		t.Errorf("the model was called while the chat was paused")
	}
}
