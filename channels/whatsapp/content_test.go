package whatsapp

import (
	"context"
	"errors"
	"testing"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"google.golang.org/protobuf/proto"

	"github.com/botgw/botgw"
)

// A pin, a live location's first message, a photo and a PTT voice note,
// built from whatsmeow's own proto types, reach the engine as the content
// model; the media keeps what whatsmeow's Download needs, not the
// thumbnail.
func TestNormalizeContent(t *testing.T) {
	thumb := make([]byte, 4000)
	photo := &waE2E.ImageMessage{Caption: proto.String("is this it?"), Mimetype: proto.String("image/jpeg"),
		DirectPath: proto.String("/v/t62.7118-24/1234_5678.enc?ccb=11-4"), MediaKey: []byte("0123456789abcdef0123456789abcdef"),
		FileEncSHA256: []byte("enc-sha"), FileSHA256: []byte("sha"), FileLength: proto.Uint64(48213), JPEGThumbnail: thumb}
	voice := &waE2E.AudioMessage{PTT: proto.Bool(true), Seconds: proto.Uint32(7), Mimetype: proto.String("audio/ogg; codecs=opus"),
		DirectPath: proto.String("/v/t62.7117-24/9_8.enc"), MediaKey: []byte("k"), FileLength: proto.Uint64(12000)}
	tests := []struct {
		name  string
		msg   *waE2E.Message
		text  string
		loc   *botgw.Location
		media botgw.MediaKind
	}{
		{"location", &waE2E.Message{LocationMessage: &waE2E.LocationMessage{DegreesLatitude: proto.Float64(53.99212),
			DegreesLongitude: proto.Float64(-1.54181), Name: proto.String("Valley Gardens"), Address: proto.String("Harrogate HG1 2SZ")}},
			"53.99212, -1.54181\nValley Gardens\nHarrogate HG1 2SZ", &botgw.Location{Latitude: 53.99212, Longitude: -1.54181, Title: "Valley Gardens", Address: "Harrogate HG1 2SZ"}, ""},
		{"live location start", &waE2E.Message{LiveLocationMessage: &waE2E.LiveLocationMessage{DegreesLatitude: proto.Float64(53.9931),
			DegreesLongitude: proto.Float64(-1.5401), SequenceNumber: proto.Int64(1)}},
			"53.99310, -1.54010", &botgw.Location{Latitude: 53.9931, Longitude: -1.5401}, ""},
		{"photo", &waE2E.Message{ImageMessage: photo}, "is this it?", nil, botgw.MediaPhoto},
		{"voice note", &waE2E.Message{AudioMessage: voice}, "", nil, botgw.MediaVoice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeClient()
			a, _ := testAdapter(Config{}, nil, openFake(f))
			in, ok, err := a.normalize(context.Background(), f, dm("C1", alicePN, tt.msg))
			if err != nil || !ok {
				t.Fatalf("not delivered: %v", err)
			}
			want := tt.text
			if in.Kind != botgw.KindText || in.Text != want {
				t.Errorf("kind %s text %q, want text %q", in.Kind, in.Text, want)
			}
			if (in.Location == nil) != (tt.loc == nil) || in.Location != nil && *in.Location != *tt.loc {
				t.Errorf("location %+v, want %+v", in.Location, tt.loc)
			}
			if tt.media == "" {
				return
			}
			if in.Media == nil || in.Media.Kind != tt.media {
				t.Fatalf("media %+v, want %s", in.Media, tt.media)
			}
			ref, _, err := decodeRef(in.Media.Ref)
			if err != nil {
				t.Fatal(err)
			}
			if ref.GetImageMessage().GetJPEGThumbnail() != nil || len(in.Media.Ref) > 400 {
				t.Errorf("reference of %d bytes keeps the thumbnail", len(in.Media.Ref))
			}
			if tt.media == botgw.MediaVoice && (in.Media.Seconds != 7 || ref.GetAudioMessage().GetDirectPath() != voice.GetDirectPath()) {
				t.Errorf("voice ref %+v / %v", in.Media, ref)
			}
		})
	}
}

// A PTT voice note and a photo are downloaded through the client's
// Download (whatsmeow's, decrypting); a file the CDN no longer has and one
// larger than the limit come back as the errors the gateway answers with
// a notice.
func TestFetchMedia(t *testing.T) {
	a, f, _, stop := connected(t, Config{})
	defer stop()
	f.mu.Lock()
	f.media = map[string][]byte{"/v/t62.7117-24/9_8.enc": []byte("OggS voice")}
	f.mu.Unlock()
	voice := &waE2E.Message{AudioMessage: &waE2E.AudioMessage{PTT: proto.Bool(true), Seconds: proto.Uint32(7),
		DirectPath: proto.String("/v/t62.7117-24/9_8.enc"), MediaKey: []byte("k"), FileLength: proto.Uint64(10)}}
	in, _, _ := a.normalize(context.Background(), f, dm("V1", alicePN, voice))
	got, err := a.FetchMedia(t.Context(), *in.Media, 1<<20)
	if err != nil || string(got) != "OggS voice" {
		t.Fatalf("voice note fetched as %q, %v", got, err)
	}
	gone := &waE2E.Message{ImageMessage: &waE2E.ImageMessage{DirectPath: proto.String("/v/expired.enc"), FileLength: proto.Uint64(5000)}}
	in, _, _ = a.normalize(context.Background(), f, dm("P1", alicePN, gone))
	if _, err := a.FetchMedia(t.Context(), *in.Media, 1<<20); !errors.Is(err, botgw.ErrNotFound) {
		t.Errorf("expired photo: %v, want ErrNotFound", err)
	}
	if _, err := a.FetchMedia(t.Context(), *in.Media, 4000); !errors.Is(err, botgw.ErrTooLarge) {
		t.Errorf("photo over the limit: %v, want ErrTooLarge", err)
	}
}
