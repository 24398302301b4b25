package convo

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/limits"
	"github.com/botgw/botgw/providers/fake"
)

// offsetClock is the real clock moved forward by a settable offset.
type offsetClock struct {
	realClock
	offset atomic.Int64
}

func (c *offsetClock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *offsetClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

func TestDailyTokenLimitAnswersWithoutTheModelAndKeepsTheMessage(t *testing.T) {
	prov := fake.New()
	clock := &offsetClock{}
	r := newRig(t, openStore(t, false, fastStore), prov, Config{Limits: limits.Config{DailyTokens: 1, DailyNotice: "Come back tomorrow!"}}, withClock(clock))

	r.say(t, testChat, "1", "hello")
	r.ch.Wait(t, 1, 5*time.Second)
	for i, text := range []string{"what's my score?", "/reset", "still there?"} {
		r.say(t, testChat, msgID(i+2), text)
		r.ch.Wait(t, i+2, 5*time.Second)
	}
	sent := r.ch.Sent()
	if sent[1].Text != "Come back tomorrow!" || sent[3].Text != "Come back tomorrow!" {
		t.Fatalf("replies past the limit = %q, %q; want the notice (a /reset must not lift it)", sent[1].Text, sent[3].Text)
	}
	if n := len(prov.Requests()); n != 1 {
		t.Fatalf("%d model calls, want 1: past the limit the model is not called", n)
	}
	if got := userTexts(history(t, r.store, testChat)); !slices.Equal(got, []string{"still there?"}) {
		t.Errorf("history after /reset = %q, want the message past the limit kept", got)
	}

	clock.advance(24 * time.Hour)
	r.say(t, testChat, msgID(5), "good morning")
	if got := r.ch.Wait(t, 5, 5*time.Second)[4].Text; got == "Come back tomorrow!" {
		t.Fatal("the limit still applies the next day")
	}
	req := prov.Requests()[1]
	if got := userTexts(req.Messages); !slices.Equal(got, []string{"still there?", "good morning"}) {
		t.Errorf("next day's request = %q, want the message kept from yesterday", got)
	}
}

func TestTurnRateLimitCoalescesAFloodIntoOneLaterTurn(t *testing.T) {
	prov := fake.New()
	clock := &offsetClock{}
	r := newRig(t, openStore(t, false, fastStore), prov, Config{Limits: limits.Config{TurnsPerMinute: 1}}, withClock(clock))

	r.say(t, testChat, "1", "hi")
	r.ch.Wait(t, 1, 5*time.Second)
	clock.advance(59 * time.Second) // the window opens again in a second
	for i, text := range []string{"one", "two", "three"} {
		r.say(t, testChat, msgID(i+2), text)
	}
	sent := r.ch.Wait(t, 2, 10*time.Second)
	settled(t, r.store, testChat) // a wrongly split flood would have been answered by now
	if got := len(r.ch.Sent()); got != 2 {
		t.Fatalf("%d replies, want 2: the flood is answered once", got)
	}
	reqs := prov.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	if got := userTexts(reqs[1].Messages); !slices.Equal(got, []string{"hi", "one\ntwo\nthree"}) {
		t.Errorf("second turn's user messages = %q, want the flood as one message", got)
	}
	if sent[1].Text == "" || !strings.Contains(r.logs.String(), "turn rate limit reached") {
		t.Errorf("the second turn did not wait for the window (reply %q)", sent[1].Text)
	}
}

func TestStatusShowsUsageAndTheLastTurn(t *testing.T) {
	r := newRig(t, openStore(t, false, fastStore), fake.New(), Config{})
	r.say(t, testChat, "1", "hello")
	r.ch.Wait(t, 1, 5*time.Second)
	r.say(t, testChat, "2", "/status")
	got := r.ch.Wait(t, 2, 5*time.Second)[1].Text
	for _, want := range []string{"Turns: 1", "today)", "Last turn: " + fake.ID + ", "} {
		if !strings.Contains(got, want) {
			t.Errorf("/status = %q, want it to contain %q", got, want)
		}
	}
}

func TestLongInputIsCutBeforeTheModelAndTheUserIsTold(t *testing.T) {
	prov := fake.New()
	r := newRig(t, openStore(t, false, fastStore), prov, Config{Limits: limits.Config{MaxInputChars: 10, CutNotice: "Cut at {max}."}})
	r.say(t, testChat, "1", "héllo wörld, and much more")
	reply := r.ch.Wait(t, 1, 5*time.Second)[0].Text
	if !strings.HasPrefix(reply, "Cut at 10.") {
		t.Errorf("reply = %q, want it to start with the cut notice", reply)
	}
	if got := userTexts(prov.Requests()[0].Messages); !slices.Equal(got, []string{"héllo wörl"}) {
		t.Errorf("the model got %q, want the first 10 characters", got)
	}
	if got := userTexts(history(t, r.store, testChat)); !slices.Equal(got, []string{"héllo wörl"}) {
		t.Errorf("stored %q, want the first 10 characters", got)
	}
	r.say(t, testChat, "2", "short")
	if reply := r.ch.Wait(t, 2, 5*time.Second)[1].Text; strings.Contains(reply, "Cut at") {
		t.Errorf("a short message got the cut notice: %q", reply)
	}
}

func TestInputLimitDefaultsTo8000(t *testing.T) {
	prov := fake.New()
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	r.say(t, testChat, "1", strings.Repeat("x", 9000))
	reply := r.ch.Wait(t, 1, 5*time.Second)[0].Text
	if got := userTexts(prov.Requests()[0].Messages); len(got) != 1 || len(got[0]) != 8000 {
		t.Errorf("the model got %d characters, want 8000", len(strings.Join(got, "")))
	}
	if !strings.Contains(reply, "8000") {
		t.Errorf("reply %q does not tell the user about the cut", reply)
	}
}

func TestLongEventTextIsCutToo(t *testing.T) {
	prov := fake.New()
	r := newRig(t, openStore(t, false, fastStore), prov, Config{Limits: limits.Config{MaxInputChars: 5}})
	ev := botgw.Inbound{Chat: testChat, Kind: botgw.KindEvent, ID: "evt:1", Event: &botgw.Event{ID: "1", Text: "visited the theatre", Respond: true}}
	if err := r.eng.Handle(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
	reply := r.ch.Wait(t, 1, 5*time.Second)[0].Text
	var events []string
	for _, m := range history(t, r.store, testChat) {
		if m.Role == botgw.RoleEvent {
			events = append(events, m.Text)
		}
	}
	if !slices.Equal(events, []string{"visit"}) {
		t.Errorf("stored events %q, want the text cut to 5 characters", events)
	}
	if strings.Contains(reply, "too long") {
		t.Errorf("the player was told about an app event's length: %q", reply)
	}
}
