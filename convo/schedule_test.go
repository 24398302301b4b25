package convo

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/providers/limit"
)

func chat(id string) botgw.ChatKey { return botgw.ChatKey{Channel: "test", ID: id} }

// lastUser is the text of the last user message of a request.
func lastUser(req botgw.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == botgw.RoleUser {
			return req.Messages[i].Text
		}
	}
	return ""
}

func TestAChatWritingAgainWaitsBehindChatsAlreadyWaiting(t *testing.T) {
	model := fake.New()
	prov, err := limit.New(model, limit.Config{MaxConcurrency: 1}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newRigWith(t, openStore(t, false, fastStore), model, prov, Config{})
	release := model.Block()
	r.say(t, chat("A"), "a1", "A1")
	wait.Eventually(t, "the condition", func() bool { return len(model.Requests()) == 1 })
	r.say(t, chat("B"), "b1", "B1")
	wait.Eventually(t, "the condition", func() bool { return prov.Waiting() == 1 })
	r.say(t, chat("C"), "c1", "C1")
	wait.Eventually(t, "the condition", func() bool { return prov.Waiting() == 2 })
	r.say(t, chat("A"), "a2", "A2")
	release()
	r.ch.Wait(t, 4, 10*time.Second)
	var order []string
	for _, req := range model.Requests() {
		order = append(order, lastUser(req))
	}
	if got := strings.Join(order, ","); got != "A1,B1,C1,A2" {
		t.Errorf("the model was asked %s, want A1,B1,C1,A2 (A's second message waits behind B and C)", got)
	}
}

func TestDebounceMakesATypingBurstOneTurn(t *testing.T) {
	model := fake.New()
	r := newRig(t, openStore(t, false, fastStore), model, Config{Turns: TurnsConfig{Debounce: time.Second}})
	for i, text := range []string{"hi", "I'm at the station", "where next?"} {
		if i > 0 {
			time.Sleep(300 * time.Millisecond) // the player types the next line
		}
		r.say(t, testChat, msgID(i), text)
	}
	sent := r.ch.Wait(t, 1, 10*time.Second)
	reqs := model.Requests()
	if len(reqs) != 1 || len(sent) != 1 {
		t.Fatalf("%d model calls and %d replies, want one of each", len(reqs), len(sent))
	}
	if got := lastUser(reqs[0]); got != "hi\nI'm at the station\nwhere next?" {
		t.Errorf("the model read %q, want all three lines in one message", got)
	}
}

func TestMaxWaitBoundsTheDebounceUnderASteadyStream(t *testing.T) {
	model := fake.New()
	cfg := Config{Turns: TurnsConfig{Debounce: time.Second, MaxWait: time.Second}}
	r := newRig(t, openStore(t, false, fastStore), model, cfg)
	const n = 10
	for i := range n { // never quiet for a whole second: 3 s of messages 300 ms apart
		if i > 0 {
			time.Sleep(300 * time.Millisecond)
		}
		r.say(t, testChat, msgID(i), fmt.Sprint("line ", i))
	}
	if len(model.Requests()) == 0 {
		t.Fatal("no model call while the stream went on for 3 s; max_wait 1s should have started a turn")
	}
	wait.Eventually(t, "the condition", func() bool {
		reqs := model.Requests()
		return len(reqs) > 0 && strings.HasSuffix(lastUser(reqs[len(reqs)-1]), fmt.Sprint("line ", n-1))
	})
	if first := lastUser(model.Requests()[0]); strings.Contains(first, fmt.Sprint("line ", n-1)) {
		t.Errorf("the first turn held the whole stream (%q): max_wait did not bound it", first)
	}
}

func TestTurnsConfigValidateNamesTheKey(t *testing.T) {
	err := TurnsConfig{Debounce: -time.Second, OnNewInput: "drop"}.Validate("channels.whatsapp.turns")
	for _, want := range []string{"channels.whatsapp.turns.debounce", "channels.whatsapp.turns.on_new_input"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want an error naming %s", err, want)
		}
	}
}
