package convo

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
)

func TestEventDuringATurnIsContextOfTheNextTurn(t *testing.T) {
	prov := fake.New()
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	release := prov.Block()
	r.say(t, testChat, "1", "I am walking to the theatre")
	wait.Eventually(t, "the condition", func() bool { return len(prov.Requests()) == 1 })
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

// TestEventsKeepTheirPlaceAmongUserMessages queues text, an event and more
// text while a turn runs: the next turn's request holds them in arrival
// order (the event after the text that came before it), as does the
// stored history.
func TestEventsKeepTheirPlaceAmongUserMessages(t *testing.T) {
	prov := fake.New()
	st := openStore(t, false, fastStore)
	r := newRig(t, st, prov, Config{})
	ctx := context.Background()
	release := prov.Block()
	r.say(t, testChat, "1", "hello")
	wait.Eventually(t, "the condition", func() bool { return len(prov.Requests()) == 1 })
	r.say(t, testChat, "2", "I am at the door")
	if err := r.eng.Handle(ctx, event(testChat, "e1", "location", "User entered Harrogate Theatre", false)); err != nil {
		t.Fatal(err)
	}
	r.say(t, testChat, "3", "what now?")
	release()
	r.ch.Wait(t, 2, 5*time.Second)

	reqs := prov.Requests()
	if len(reqs) != 2 {
		t.Fatalf("provider called %d times, want 2 (the burst is one turn)", len(reqs))
	}
	var got []string
	for _, m := range reqs[1].Messages {
		got = append(got, string(m.Role)+": "+m.Text)
	}
	want := []string{
		"user: hello",
		"assistant: " + reqs[1].Messages[1].Text,
		"user: I am at the door",
		"event: User entered Harrogate Theatre",
		"user: what now?",
	}
	if !slices.Equal(got, want) {
		t.Errorf("second turn's request =\n%q\nwant\n%q", got, want)
	}
	var stored []string
	for _, m := range history(t, st, testChat) {
		stored = append(stored, string(m.Role))
	}
	if want := []string{"user", "assistant", "user", "event", "user", "assistant"}; !slices.Equal(stored, want) {
		t.Errorf("stored history roles = %q, want %q", stored, want)
	}
}
