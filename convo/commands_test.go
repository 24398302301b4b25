package convo

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/fake"
)

func TestCommandsNeverReachTheModelOrTheHistory(t *testing.T) {
	st := openStore(t, false, fastStore)
	prov := fake.New()
	r := newRig(t, st, prov, Config{})
	r.say(t, testChat, "1", "hello")
	r.ch.Wait(t, 1, 5*time.Second)
	for i, cmd := range []string{"/status", "/help", "/Status@MyGameBot"} {
		r.say(t, testChat, "c"+cmd, cmd)
		reply := r.ch.Wait(t, i+2, 5*time.Second)[i+1].Text
		if cmd == "/help" && !strings.Contains(reply, "/reset") {
			t.Errorf("/help reply lacks /reset: %q", reply)
		}
		if strings.Contains(cmd, "tatus") && !strings.Contains(reply, "Turns: 1") {
			t.Errorf("%s reply = %q, want the turn count", cmd, reply)
		}
	}
	if n := len(prov.Requests()); n != 1 {
		t.Errorf("provider called %d times, want 1 (commands never reach it)", n)
	}
	if got := userTexts(history(t, st, testChat)); !slices.Equal(got, []string{"hello"}) {
		t.Errorf("history = %q, commands must not be stored", got)
	}
}

func TestResetStartsAFreshConversation(t *testing.T) {
	st := openStore(t, false, fastStore)
	prov := fake.New()
	other := botgw.ChatKey{Channel: "test", ID: "player2"}
	r := newRig(t, st, prov, Config{Operators: map[string][]string{"test": {"op1"}}})
	r.say(t, testChat, "1", "my name is Ann")
	r.say(t, other, "o1", "my name is Bob")
	r.ch.Wait(t, 2, 5*time.Second)

	// A player cannot reset another chat.
	r.say(t, testChat, "2", "/reset test:player2")
	if got := r.ch.Wait(t, 3, 5*time.Second)[2].Text; !strings.Contains(got, "only operators") {
		t.Errorf("non-operator got %q, want a polite refusal", got)
	}
	if got := userTexts(history(t, st, other)); len(got) != 1 {
		t.Fatalf("refused reset changed the other chat: %q", got)
	}

	// An operator can.
	op := botgw.Inbound{Chat: botgw.ChatKey{Channel: "test", ID: "ops"}, ID: "op-1", UserID: "op1", Text: "/reset test:player2"}
	if err := r.eng.Handle(context.Background(), op); err != nil {
		t.Fatal(err)
	}
	r.ch.Wait(t, 4, 5*time.Second)
	r.say(t, other, "o2", "who am I?")
	r.ch.Wait(t, 5, 5*time.Second)
	reqs := prov.Requests()
	if got := userTexts(reqs[len(reqs)-1].Messages); !slices.Equal(got, []string{"who am I?"}) {
		t.Errorf("after the operator's reset the request holds %q", got)
	}

	// And a player can reset their own chat.
	r.say(t, testChat, "3", "/reset")
	r.ch.Wait(t, 6, 5*time.Second)
	r.say(t, testChat, "4", "hi again")
	r.ch.Wait(t, 7, 5*time.Second)
	reqs = prov.Requests()
	if got := userTexts(reqs[len(reqs)-1].Messages); !slices.Equal(got, []string{"hi again"}) {
		t.Errorf("after /reset the request holds %q", got)
	}
}

// TestStatusOfAnotherChatIsForOperators: /status <chat-key> shows another
// chat's numbers to an operator and only a refusal to a player.
func TestStatusOfAnotherChatIsForOperators(t *testing.T) {
	st := openStore(t, false, fastStore)
	other := botgw.ChatKey{Channel: "test", ID: "player2"}
	r := newRig(t, st, fake.New(), Config{Operators: map[string][]string{"test": {"op1"}}})
	r.say(t, other, "o1", "hello")
	r.ch.Wait(t, 1, 5*time.Second)

	r.say(t, testChat, "1", "/status test:player2")
	if got := r.ch.Wait(t, 2, 5*time.Second)[1].Text; !strings.Contains(got, "only operators") || strings.Contains(got, "Turns:") {
		t.Errorf("player's /status of another chat = %q, want a polite refusal and no numbers", got)
	}
	op := botgw.Inbound{Chat: botgw.ChatKey{Channel: "test", ID: "ops"}, ID: "op-1", UserID: "op1", Text: "/status test:player2"}
	if err := r.eng.Handle(context.Background(), op); err != nil {
		t.Fatal(err)
	}
	got := r.ch.Wait(t, 3, 5*time.Second)[2].Text
	for _, want := range []string{"test:player2: ", "Turns: 1", "Messages kept: 2", "Stored: ", "expires after"} {
		if !strings.Contains(got, want) {
			t.Errorf("operator's /status test:player2 = %q, want it to contain %q", got, want)
		}
	}
	if err := r.eng.Handle(context.Background(), botgw.Inbound{Chat: op.Chat, ID: "op-2", UserID: "op1", Text: "/status test:nobody"}); err != nil {
		t.Fatal(err)
	}
	if got := r.ch.Wait(t, 4, 5*time.Second)[3].Text; !strings.Contains(got, "No conversation found for test:nobody") {
		t.Errorf("operator's /status of an unknown chat = %q", got)
	}
}

func event(k botgw.ChatKey, id, key, text string, respond bool) botgw.Inbound {
	return botgw.Inbound{Chat: k, Kind: botgw.KindEvent, ID: "evt:" + id,
		Event: &botgw.Event{ID: id, Key: key, Text: text, Respond: respond}}
}

func TestEventsBecomeContextOfTheNextTurn(t *testing.T) {
	st := openStore(t, false, fastStore)
	prov := fake.New()
	r := newRig(t, st, prov, Config{})
	ctx := context.Background()
	for _, in := range []botgw.Inbound{
		event(testChat, "e1", "location", "User is at the station", false),
		event(testChat, "e1", "location", "User is at the station", false), // same id: stored once
		event(testChat, "e2", "location", "User has just visited Harrogate Theatre", false),
		event(testChat, "e3", "", "User earned 50 points", false),
	} {
		if err := r.eng.Handle(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	r.say(t, testChat, "1", "where am I?")
	r.ch.Wait(t, 1, 5*time.Second)
	if n := len(prov.Requests()); n != 1 {
		t.Fatalf("provider called %d times, want 1 (events alone never call it)", n)
	}
	msgs := prov.Requests()[0].Messages
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Role)+": "+m.Text)
	}
	want := []string{"event: User has just visited Harrogate Theatre", "event: User earned 50 points", "user: where am I?"}
	if !slices.Equal(got, want) {
		t.Errorf("request messages =\n%q\nwant\n%q", got, want)
	}
}

func TestEventWithRespondSendsOneReply(t *testing.T) {
	prov := fake.New(fake.Step{Text: "You found the theatre! +50 points."})
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	if err := r.eng.Handle(context.Background(), event(testChat, "e1", "location", "User reached the theatre", true)); err != nil {
		t.Fatal(err)
	}
	sent := r.ch.Wait(t, 1, 5*time.Second)
	settled(t, r.store, testChat)
	if len(r.ch.Sent()) != 1 || sent[0].Text != "You found the theatre! +50 points." {
		t.Errorf("sent %v, want exactly the one announcement", r.ch.Sent())
	}
}

func TestUnsupportedMediaGetsANoticeWithoutTheModel(t *testing.T) {
	prov := fake.New()
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	in := botgw.Inbound{Chat: testChat, Kind: botgw.KindUnsupported, ID: "photo1"}
	if err := r.eng.Handle(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if got := r.ch.Wait(t, 1, 5*time.Second)[0].Text; !strings.Contains(got, "only read text") {
		t.Errorf("notice = %q", got)
	}
	if len(prov.Requests()) != 0 {
		t.Error("provider was called for a photo")
	}
}
