package convo

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/fakeclock"
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

// typing drives one chat's turns on a fake clock: the engine's debounce
// waits end only when the test moves the clock, so the player's pauses
// between lines take no real time.
type typing struct {
	r     *rig
	clock *fakeclock.Clock
	model *fake.Provider
}

func newTyping(t *testing.T, turns TurnsConfig) *typing {
	model := fake.New()
	clock := fakeclock.New(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	r := newRig(t, openStore(t, false, fastStore), model, Config{Turns: turns}, withClock(clock))
	return &typing{r: r, clock: clock, model: model}
}

// settled waits until the chat's worker either waits on the clock or has
// asked the model more than asked times, and reports whether it asked.
func (p *typing) settled(t *testing.T, asked int) bool {
	t.Helper()
	wait.Eventually(t, "the worker to pause or ask the model", func() bool {
		return p.clock.Waiting() > 0 || len(p.model.Requests()) > asked
	})
	return len(p.model.Requests()) > asked
}

// advance moves the clock on by d; when that ends the worker's pause, it
// waits until the worker has looked again.
func (p *typing) advance(t *testing.T, d time.Duration) {
	t.Helper()
	asked := len(p.model.Requests())
	if p.clock.Advance(d) > 0 {
		p.settled(t, asked)
	}
}

// runOut moves the clock from one of the worker's pauses to the next
// until done holds.
func (p *typing) runOut(t *testing.T, done func() bool) {
	t.Helper()
	for range 50 {
		if done() {
			return
		}
		p.settled(t, len(p.model.Requests()))
		if d, ok := p.clock.Next(); ok {
			p.advance(t, d)
		}
	}
	t.Fatal("the chat's turns did not run out after 50 pauses")
}

func TestDebounceMakesATypingBurstOneTurn(t *testing.T) {
	p := newTyping(t, TurnsConfig{Debounce: time.Second})
	start := p.clock.Now()
	p.r.say(t, testChat, msgID(0), "hi")
	if p.settled(t, 0) {
		t.Fatal("the first line was answered at once; want a wait for the chat to go quiet")
	}
	for i, text := range []string{"I'm at the station", "where next?"} {
		p.advance(t, 300*time.Millisecond) // the player types the next line
		p.r.say(t, testChat, msgID(i+1), text)
	}
	p.runOut(t, func() bool { return len(p.model.Requests()) > 0 })
	if waited := p.clock.Now().Sub(start); waited != 1600*time.Millisecond {
		t.Errorf("the turn started %s after the first line, want 1.6s: a second after the last", waited)
	}
	sent := p.r.ch.Wait(t, 1, 10*time.Second)
	reqs := p.model.Requests()
	if len(reqs) != 1 || len(sent) != 1 {
		t.Fatalf("%d model calls and %d replies, want one of each", len(reqs), len(sent))
	}
	if got := lastUser(reqs[0]); got != "hi\nI'm at the station\nwhere next?" {
		t.Errorf("the model read %q, want all three lines in one message", got)
	}
}

func TestMaxWaitBoundsTheDebounceUnderASteadyStream(t *testing.T) {
	p := newTyping(t, TurnsConfig{Debounce: time.Second, MaxWait: time.Second})
	const n = 10
	for i := range n { // never quiet for a whole second: 3 s of lines 300 ms apart
		if i > 0 {
			p.advance(t, 300*time.Millisecond)
		}
		p.r.say(t, testChat, msgID(i), fmt.Sprint("line ", i))
		if i == 0 && p.settled(t, 0) {
			t.Fatal("the first line was answered at once; want a wait for the chat to go quiet")
		}
	}
	reqs := p.model.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model call while the stream went on for 3 s; max_wait 1s should have started a turn")
	}
	if first := lastUser(reqs[0]); first != "line 0\nline 1\nline 2\nline 3" {
		t.Errorf("the first turn read %q, want the lines of its first second (max_wait 1s)", first)
	}
	p.runOut(t, func() bool {
		reqs := p.model.Requests()
		return strings.HasSuffix(lastUser(reqs[len(reqs)-1]), fmt.Sprint("line ", n-1))
	})
}

func TestTurnsConfigValidateNamesTheKey(t *testing.T) {
	err := TurnsConfig{Debounce: -time.Second, OnNewInput: "drop"}.Validate("channels.whatsapp.turns")
	for _, want := range []string{"channels.whatsapp.turns.debounce", "channels.whatsapp.turns.on_new_input"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want an error naming %s", err, want)
		}
	}
}
