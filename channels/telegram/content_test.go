package telegram

import (
	"testing"

	"github.com/botgw/botgw"
)

// What a player sends besides text reaches the engine as the content
// model: a pin with its coordinates in words, a venue with its title and
// address, a live location's later position as an update that runs no
// turn, a photo's renditions, a voice note's reference, a sticker's emoji.
func TestNormalizeContent(t *testing.T) {
	tests := []struct {
		sample string
		kind   botgw.InboundKind
		text   string
		loc    *botgw.Location
		media  botgw.MediaKind
	}{
		{"location.json", botgw.KindText, "53.992123, -1.541812", &botgw.Location{Latitude: 53.992123, Longitude: -1.541812}, ""},
		{"venue.json", botgw.KindText, "53.99466, -1.53897\nHarrogate Theatre\nOxford St, Harrogate HG1 1QF",
			&botgw.Location{Latitude: 53.99466, Longitude: -1.53897, Title: "Harrogate Theatre", Address: "Oxford St, Harrogate HG1 1QF"}, ""},
		{"live_location.json", botgw.KindText, "53.99210, -1.54180", &botgw.Location{Latitude: 53.9921, Longitude: -1.5418}, ""},
		{"live_location_edit.json", botgw.KindLocation, "", &botgw.Location{Latitude: 53.99301, Longitude: -1.54012}, ""},
		{"voice.json", botgw.KindText, "", nil, botgw.MediaVoice},
		{"photo_sizes.json", botgw.KindText, "found it!", nil, botgw.MediaPhoto},
		{"sticker.json", botgw.KindText, "🎉", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.sample, func(t *testing.T) {
			ta := newTestAdapter(t, Config{}, "")
			in, ok := ta.normalize(decodeSample(t, tc.sample))
			if !ok {
				t.Fatal("not delivered")
			}
			if in.Kind != tc.kind || in.Text != tc.text {
				t.Errorf("kind %s text %q, want %s %q", in.Kind, in.Text, tc.kind, tc.text)
			}
			if (in.Location == nil) != (tc.loc == nil) || in.Location != nil && *in.Location != *tc.loc {
				t.Errorf("location %+v, want %+v", in.Location, tc.loc)
			}
			if got := mediaKind(in); got != tc.media {
				t.Errorf("media %q, want %q", got, tc.media)
			}
		})
	}
}

func mediaKind(in botgw.Inbound) botgw.MediaKind {
	if in.Media == nil {
		return ""
	}
	return in.Media.Kind
}

// Each position of a live location is its own input (edits of one message
// differ by edit_date), and the voice note keeps what the gateway needs to
// refuse a long one before downloading it.
func TestNormalizeRefs(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	first, _ := ta.normalize(decodeSample(t, "live_location.json"))
	edit, _ := ta.normalize(decodeSample(t, "live_location_edit.json"))
	if edit.ID == first.ID || edit.Chat != first.Chat {
		t.Errorf("live update id %q chat %s, want a new id in chat %s", edit.ID, edit.Chat, first.Chat)
	}
	voice, _ := ta.normalize(decodeSample(t, "voice.json"))
	if m := voice.Media; m.Ref != "AwACAgQAAxkBAAIBSWdAbv1" || m.Seconds != 4 || m.MIME != "audio/ogg" {
		t.Errorf("voice ref %+v", m)
	}
	photo, _ := ta.normalize(decodeSample(t, "photo_sizes.json"))
	if got, ok := photo.Media.Pick(200_000); !ok || got.Ref != "AgACAgQAAxkBAAIBS2dAb-x" {
		t.Errorf("picked %+v under 200 kB, want the 800×600 rendition", got)
	}
}
