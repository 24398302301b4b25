package slack

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

// A photo, an audio clip and a PDF shared in a direct message: the photo
// and the clip become media references the turn fetches with the bot
// token; the PDF alone gets the text-only notice.
func TestFileShareReachesTheTurnAsMedia(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	rec := &channeltest.Store{}
	h := ch.WebhookHandler(rec.Deliver)
	photo := []byte("\xff\xd8\xff\xe0 a jpeg")
	clip := []byte("\x1aE\xdf\xa3 webm opus")
	shares := [][]byte{
		channeltest.SlackFileShare("1700000070.000600", "is this the bridge?", f.AddFile("F0PHOTO01", "IMG_0042.jpg", "image/jpeg", photo, nil)),
		channeltest.SlackFileShare("1700000071.000600", "", f.AddFile("F0CLIP001", "audio_message.webm", "audio/webm", clip,
			map[string]any{"subtype": "slack_audio", "duration_ms": 4200, "media_display_type": "audio"})),
		channeltest.SlackFileShare("1700000072.000600", "", f.AddFile("F0DOC0001", "rules.pdf", "application/pdf", []byte("%PDF-1.7"), nil)),
	}
	for _, body := range shares {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, signedRequest(body, time.Now(), testSecret))
		if w.Code != http.StatusOK {
			t.Fatalf("file_share answered %d", w.Code)
		}
	}
	got := rec.Stored()
	if len(got) != 3 {
		t.Fatalf("stored %d messages, want 3", len(got))
	}
	p, v, doc := got[0], got[1], got[2]
	if p.Kind != botgw.KindText || p.Media == nil || p.Media.Kind != botgw.MediaPhoto || p.Text != "is this the bridge?" {
		t.Fatalf("photo stored as %q %+v %q, want a photo with its caption", p.Kind, p.Media, p.Text)
	}
	if v.Media == nil || v.Media.Kind != botgw.MediaVoice || v.Media.Seconds != 5 || v.Media.MIME != "audio/webm" {
		t.Fatalf("audio clip stored as %+v, want a 5-second voice note", v.Media)
	}
	if doc.Kind != botgw.KindUnsupported || doc.Media != nil {
		t.Errorf("PDF stored as %q %+v, want the text-only notice", doc.Kind, doc.Media)
	}
	for i, want := range [][]byte{photo, clip} {
		data, err := ch.FetchMedia(t.Context(), *got[i].Media, 1<<20)
		if err != nil || !bytes.Equal(data, want) {
			t.Errorf("FetchMedia(%s) = %q, %v; want the file's bytes", got[i].Media.Ref, data, err)
		}
	}
	for _, c := range f.FileDownloads() {
		if c.Params["auth"] != "bot" {
			t.Errorf("download of %s without the bot token", c.Params["id"])
		}
	}
}

// Files too large, deleted or unreadable with the token fail with the
// errors the reader does not retry; a server error is retried; the token
// never goes to a host other than Slack's.
func TestFetchMediaFailures(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	ref := func(file map[string]any) botgw.Media {
		return botgw.Media{Kind: botgw.MediaPhoto, Ref: file["url_private_download"].(string), Size: int64(file["size"].(int))}
	}
	big := ref(f.AddFile("F0BIG0001", "big.jpg", "image/jpeg", make([]byte, 5000), nil))
	understated := big
	understated.Size = 10 // Slack's size is a hint: the download is capped too
	gone := ref(f.AddGoneFile("F0GONE001", "gone.jpg", "image/jpeg", 300))
	ok := ref(f.AddFile("F0OK00001", "ok.jpg", "image/jpeg", []byte("\xff\xd8\xff ok"), nil))

	if _, err := ch.FetchMedia(t.Context(), big, 1000); !errors.Is(err, botgw.ErrTooLarge) || len(f.FileDownloads()) != 0 {
		t.Errorf("a 5000-byte file under a 1000-byte limit: %v after %d downloads, want ErrTooLarge without a download", err, len(f.FileDownloads()))
	}
	if _, err := ch.FetchMedia(t.Context(), understated, 1000); !errors.Is(err, botgw.ErrTooLarge) {
		t.Errorf("a file larger than Slack said: %v, want ErrTooLarge", err)
	}
	if _, err := ch.FetchMedia(t.Context(), gone, 1000); !errors.Is(err, botgw.ErrNotFound) {
		t.Errorf("a deleted file: %v, want ErrNotFound", err)
	}
	f.FailDownloads(1)
	if _, err := ch.FetchMedia(t.Context(), ok, 1000); err == nil || errors.Is(err, botgw.ErrNotFound) || errors.Is(err, botgw.ErrTooLarge) {
		t.Errorf("a 500 from Slack: %v, want an error the reader retries", err)
	}
	if data, err := ch.FetchMedia(t.Context(), ok, 1000); err != nil || string(data) != "\xff\xd8\xff ok" {
		t.Errorf("the retry: %q, %v; want the file", data, err)
	}

	other, err := New(Config{BotToken: "xoxb-not-the-apps-token", SigningSecret: testSecret, APIURL: f.URL}, Env{Pacer: testPacer(t)}, discard())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.(*eventsChannel).FetchMedia(t.Context(), ok, 1000); !errors.Is(err, botgw.ErrNotFound) {
		t.Errorf("a token that cannot read the file (sign-in page): %v, want ErrNotFound", err)
	}

	var elsewhere atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
	}))
	defer srv.Close()
	if _, err := ch.FetchMedia(t.Context(), botgw.Media{Kind: botgw.MediaPhoto, Ref: srv.URL + "/x.jpg"}, 1000); !errors.Is(err, botgw.ErrNotFound) || elsewhere.Load() != 0 {
		t.Errorf("a file on another host: %v, %d requests there; want it refused unsent", err, elsewhere.Load())
	}
}
