package convo

import (
	"context"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/fake"
)

// TestProactiveSendsAreMarked: what the player did not just ask for (a
// broadcast's message, the reply to an event with respond, an operator's
// message) is marked proactive; the reply to the player's own words is not.
func TestProactiveSendsAreMarked(t *testing.T) {
	r := newRig(t, openStore(t, false, fastStore), fake.New(), Config{})
	ctx := context.Background()
	steps := []struct {
		name      string
		in        botgw.Inbound
		proactive bool
	}{
		{"reply to the player", botgw.Inbound{Chat: testChat, ID: "1", UserID: "u1", Text: "hello"}, false},
		{"broadcast message", botgw.Inbound{Chat: testChat, Kind: botgw.KindSay, ID: "bc:x:0", Text: "The final round starts"}, true},
		{"reply to an event with respond", event(testChat, "e1", "", "The player reached the theatre", true), true},
		{"operator message", botgw.OperatorInput(testChat, "", botgw.OperatorAction{Action: botgw.OpMessage, Operator: "ann"}, "Hi, Ann here"), true},
	}
	for i, s := range steps {
		if err := r.eng.Handle(ctx, s.in); err != nil {
			t.Fatal(err)
		}
		got := r.ch.Wait(t, i+1, 5*time.Second)[i]
		if got.Proactive != s.proactive {
			t.Errorf("%s: Proactive = %v, want %v", s.name, got.Proactive, s.proactive)
		}
	}
}
