package whatsapp

import (
	"context"
	"slices"
	"testing"

	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

// Through the engine: an event's choices go out as a numbered list under
// the reply; the player's "2" reaches the model as the second choice's
// label, marked as a tap; once a reply offered nothing, "1" is just "1".
func TestNumberedChoicesThroughTheEngine(t *testing.T) {
	f := newFakeClient()
	a, _ := testAdapter(Config{}, nil, openFake(f))
	eng, prov := withEngine(t, a)
	listen(t, a, eng.Handle)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)

	k := botgw.ChatKey{Channel: Name, ID: alicePN.String()}
	ev := &botgw.Event{ID: "ev1", Text: "The bridge is closed", Respond: true,
		Offer: botgw.Offer{Choices: []string{"Take the ferry", "Walk"}}}
	if err := eng.Handle(context.Background(), botgw.Inbound{Chat: k, Kind: botgw.KindEvent, ID: "evt:ev1", Event: ev}); err != nil {
		t.Fatal(err)
	}
	f.waitCall(t, "send")
	if got := channeltest.NumberedLabels(f.sentTexts()[0]); !slices.Equal(got, ev.Choices) {
		t.Fatalf("sent %q, want the reply with the choices numbered under it", f.sentTexts()[0])
	}
	if !acked(t, f, live(dm("A2", alicePN, text(" 2")))) {
		t.Fatal("handler did not ack")
	}
	f.waitCall(t, "send")
	last := lastRequested(prov.Requests()[1].Messages)
	if last.Text != "Walk" || !last.Tap {
		t.Errorf("the model read %+v, want the second choice's label as a tap", last)
	}
	if !acked(t, f, live(dm("A3", alicePN, text("1")))) {
		t.Fatal("handler did not ack")
	}
	f.waitCall(t, "send")
	if last := lastRequested(prov.Requests()[2].Messages); last.Text != "1" || last.Tap {
		t.Errorf("the model read %+v, want the plain text 1 (the latest reply offered nothing)", last)
	}
}

func lastRequested(h []botgw.Message) botgw.Message {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == botgw.RoleUser {
			return h[i]
		}
	}
	return botgw.Message{}
}
