package convo

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/botgw/botgw/providers/fake"
)

func TestEventDuringATurnIsContextOfTheNextTurn(t *testing.T) {
	prov := fake.New()
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	release := prov.Block()
	r.say(t, testChat, "1", "I am walking to the theatre")
	waitFor(t, func() bool { return len(prov.Requests()) == 1 })
	if err := r.eng.Handle(context.Background(), event(testChat, "e1", "location", "User reached Harrogate Theatre", false)); err != nil {
		t.Fatal(err)
	}
	release()
	r.ch.Wait(t, 1, 5*time.Second)
	r.say(t, testChat, "2", "where am I?")
	r.ch.Wait(t, 2, 5*time.Second)
	reqs := prov.Requests()
	if len(reqs) != 2 {
		t.Fatalf("provider called %d times, want 2 (the event alone never calls it)", len(reqs))
	}
	for _, m := range reqs[0].Messages {
		if m.Text == "User reached Harrogate Theatre" {
			t.Error("the running turn saw an event posted after it started")
		}
	}
	var got []string
	for _, m := range reqs[1].Messages {
		got = append(got, string(m.Role))
	}
	want := []string{"user", "assistant", "event", "user"}
	if !slices.Equal(got, want) || reqs[1].Messages[2].Text != "User reached Harrogate Theatre" {
		t.Errorf("next turn's roles = %q, want %q with the event after the first exchange", got, want)
	}
}
