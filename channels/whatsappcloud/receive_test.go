package whatsappcloud

import (
	"errors"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
)

// Every kind of input a player sends reads as the engine expects it.
func TestReceiveKinds(t *testing.T) {
	r := newRig(t, false)
	now := time.Now()
	msg := func(id, typ string, part map[string]any) map[string]any {
		return channeltest.WAMessage(player, id, now, typ, part)
	}
	photo := r.receive(t, msg("wamid.p", "image", map[string]any{"id": "media-1", "mime_type": "image/jpeg", "caption": "the bridge?"}))
	if photo.Media == nil || photo.Media.Kind != botgw.MediaPhoto || photo.Media.Ref != "media-1" || photo.Text != "the bridge?" {
		t.Errorf("photo: %+v", photo)
	}
	voice := r.receive(t, msg("wamid.v", "audio", map[string]any{"id": "media-2", "mime_type": "audio/ogg; codecs=opus", "voice": true}))
	if voice.Media == nil || voice.Media.Kind != botgw.MediaVoice || voice.Media.Ref != "media-2" {
		t.Errorf("voice note: %+v", voice)
	}
	sticker := r.receive(t, msg("wamid.s", "sticker", map[string]any{"id": "media-3", "mime_type": "image/webp"}))
	if sticker.Media == nil || sticker.Media.Kind != botgw.MediaPhoto {
		t.Errorf("sticker: %+v", sticker)
	}
	loc := r.receive(t, msg("wamid.l", "location", map[string]any{"latitude": 53.99212, "longitude": -1.54181, "name": "Harrogate Theatre"}))
	if loc.Location == nil || loc.Location.Title != "Harrogate Theatre" || loc.Text == "" {
		t.Errorf("location: %+v", loc)
	}
	tap := r.receive(t, msg("wamid.b", "interactive", map[string]any{"type": "button_reply", "button_reply": map[string]any{"id": "c1:o7:1", "title": "Ferry"}}))
	if tap.Tap == nil || tap.Tap.Ref != "o7" || tap.Tap.Index != 1 {
		t.Errorf("button tap: %+v", tap)
	}
	row := r.receive(t, msg("wamid.r", "interactive", map[string]any{"type": "list_reply", "list_reply": map[string]any{"id": "c1:o7:4", "title": "Walk"}}))
	if row.Tap == nil || row.Tap.Index != 4 {
		t.Errorf("list tap: %+v", row)
	}
	quick := r.receive(t, msg("wamid.q", "button", map[string]any{"payload": "PLAY_AGAIN", "text": "Play again"}))
	if quick.Tap == nil || quick.Text != "Play again" {
		t.Errorf("template quick reply: %+v", quick)
	}
	video := r.receive(t, msg("wamid.x", "video", map[string]any{"id": "media-4"}))
	if video.Kind != botgw.KindUnsupported {
		t.Errorf("video: %+v, want unsupported", video)
	}
}

// The same wamid delivered twice is stored once (the store dedupes on
// the wamid); a read mark goes out for it.
func TestReceiveMarksRead(t *testing.T) {
	r := newRig(t, false)
	r.receive(t, text("wamid.once", "hi", time.Now()))
	if w := r.post(t, channeltest.WAHook(testPhone, []map[string]any{text("wamid.once", "hi", time.Now())}, nil), testSecret); w.Code != 200 {
		t.Fatal(w.Code)
	}
	if s := r.store.Stored(); len(s) != 1 || s[0].ID != "wamid.once" {
		t.Errorf("stored %+v, want the message once by its wamid", s)
	}
	wait.Eventually(t, "a read mark", func() bool { return len(r.graph.Reads()) >= 1 })
	if got := r.graph.Reads()[0]["message_id"]; got != "wamid.once" {
		t.Errorf("read mark for %v", got)
	}
}

// Media by id: the lookup, then the url, both with the token; an id Meta
// does not know is ErrNotFound.
func TestFetchMedia(t *testing.T) {
	r := newRig(t, false)
	r.graph.AddFile("media-1", []byte("JPEGDATA"))
	b, err := r.a.FetchMedia(ctx(t), botgw.Media{Kind: botgw.MediaPhoto, Ref: "media-1"}, 1000)
	if err != nil || string(b) != "JPEGDATA" {
		t.Fatalf("fetch: %q %v", b, err)
	}
	if _, err := r.a.FetchMedia(ctx(t), botgw.Media{Ref: "media-1"}, 3); !errors.Is(err, botgw.ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := r.a.FetchMedia(ctx(t), botgw.Media{Ref: "gone"}, 1000); !errors.Is(err, botgw.ErrNotFound) {
		t.Errorf("unknown id: %v, want ErrNotFound", err)
	}
}
