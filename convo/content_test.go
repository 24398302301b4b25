package convo

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
)

func pinInbound(id string, lat, lon float64, kind botgw.InboundKind) botgw.Inbound {
	l := &botgw.Location{Latitude: lat, Longitude: lon}
	in := botgw.Inbound{Chat: testChat, Kind: kind, ID: id, UserID: "u1", Location: l}
	if kind == botgw.KindText {
		in.Text = l.String()
	}
	return in
}

// A pin is the player's message and the chat's pinned location; a live
// location's later position replaces the pinned location without a turn
// (no model call, no reply), so the next turn sees the latest position
// once.
func TestLocationPinAndLiveUpdates(t *testing.T) {
	prov := fake.New()
	st := openStore(t, false, fastStore)
	r := newRig(t, st, prov, Config{})
	ctx := context.Background()
	if err := r.eng.Handle(ctx, pinInbound("p1", 53.99212, -1.54181, botgw.KindText)); err != nil {
		t.Fatal(err)
	}
	r.ch.Wait(t, 1, 5*time.Second)
	if err := r.eng.Handle(ctx, pinInbound("p1@2", 53.99301, -1.54012, botgw.KindLocation)); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, "the condition", func() bool { return strings.Contains(locationEvents(history(t, st, testChat)), "53.99301") })
	if n := len(prov.Requests()); n != 1 {
		t.Fatalf("the live update called the model: %d requests, want 1", n)
	}
	r.say(t, testChat, "t2", "what is near me?")
	r.ch.Wait(t, 2, 5*time.Second)
	if sent := r.ch.Sent(); len(sent) != 2 {
		t.Fatalf("sent %d replies, want 2 (none for the live update)", len(sent))
	}
	req := prov.Requests()[1]
	if got := locationEvents(req.Messages); got != "The player's current location: 53.99301, -1.54012" {
		t.Errorf("location events the model saw: %q, want the latest position once", got)
	}
	if first := req.Messages[0]; first.Role != botgw.RoleUser || first.Text != "53.99212, -1.54181" || first.Location == nil {
		t.Errorf("the pin in the history: %+v", first)
	}
}

func locationEvents(h []botgw.Message) string {
	var out []string
	for _, m := range h {
		if m.Role == botgw.RoleEvent && m.EventKey == botgw.LocationKey {
			out = append(out, m.Text)
		}
	}
	return strings.Join(out, " | ")
}

// photoReader stands in for convo/media: every photo reads as 200 kB of
// image for its turn.
type photoReader struct{}

func (photoReader) Read(_ context.Context, in botgw.Inbound) (botgw.Message, string) {
	return botgw.Message{Text: "[photo] " + in.Text, Media: botgw.MediaPhoto,
		Images: []botgw.Image{{MIME: "image/jpeg", Data: make([]byte, 200_000)}}}, ""
}

// A player's state after ten photo turns is about the size of ten text
// turns: the history keeps "[photo]" and the caption, never the image,
// and a later turn does not send an earlier image again.
func TestPhotoTurnsKeepTheStateSmall(t *testing.T) {
	prov := fake.New()
	st := openStore(t, false, fastStore)
	r := newRig(t, st, prov, Config{}, func(e *Engine) { e.deps.Media = photoReader{} })
	photos, texts := botgw.ChatKey{Channel: "test", ID: "photos"}, botgw.ChatKey{Channel: "test", ID: "texts"}
	for i := range 10 {
		caption := fmt.Sprintf("clue %d: is this the statue?", i)
		in := botgw.Inbound{Chat: photos, Kind: botgw.KindText, ID: msgID(i), UserID: "u1", Text: caption,
			Media: &botgw.Media{Kind: botgw.MediaPhoto, Ref: "file-" + msgID(i)}}
		if err := r.eng.Handle(context.Background(), in); err != nil {
			t.Fatal(err)
		}
		r.say(t, texts, msgID(i), caption)
		r.ch.Wait(t, 2*(i+1), 5*time.Second)
	}
	p, x := decoded(t, st, photos), decoded(t, st, texts)
	ps, xs := stateSize(t, st, photos), stateSize(t, st, texts)
	if ps > xs*12/10 || len(p.History) != len(x.History) {
		t.Errorf("state after 10 photo turns: %d bytes, %d messages; after 10 text turns: %d bytes, %d messages", ps, len(p.History), xs, len(x.History))
	}
	for _, req := range prov.Requests() {
		for _, m := range req.Messages[:len(req.Messages)-1] {
			if len(m.Images) > 0 {
				t.Fatal("an earlier photo was sent to the model again")
			}
		}
	}
}

func stateSize(t *testing.T, st botgw.Store, k botgw.ChatKey) int {
	t.Helper()
	info, err := st.Info(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	return len(info.Blob)
}

// A live position taken before the stored one (its edit date is older:
// it arrived out of order) never replaces it.
func TestOlderLivePositionNeverReplacesANewerOne(t *testing.T) {
	st := openStore(t, false, fastStore)
	r := newRig(t, st, fake.New(), Config{})
	ctx := context.Background()
	r.say(t, testChat, "t0", "hi")
	r.ch.Wait(t, 1, 5*time.Second)
	taken := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	newer := pinInbound("u2", 53.99301, -1.54012, botgw.KindLocation)
	newer.At = taken.Add(time.Minute)
	if err := r.eng.Handle(ctx, newer); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, "the newer position stored", func() bool { return strings.Contains(locationEvents(history(t, st, testChat)), "53.99301") })
	older := pinInbound("u1", 53.99100, -1.54500, botgw.KindLocation)
	older.At = taken
	if err := r.eng.Handle(ctx, older); err != nil {
		t.Fatal(err)
	}
	r.say(t, testChat, "t1", "where am I?")
	r.ch.Wait(t, 2, 5*time.Second)
	if got := locationEvents(history(t, st, testChat)); !strings.Contains(got, "53.99301") || strings.Contains(got, "53.991") {
		t.Errorf("location events %q, want the newer position only", got)
	}
}
