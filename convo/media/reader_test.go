package media

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/channels/slack"
	"github.com/botgw/botgw/providers/openai"
	"github.com/botgw/botgw/state/ratelimit/ratelimittest"
)

// photoBytes is a small photo's bytes (a JPEG header and data).
var photoBytes = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00 the old bridge")

// outcomes records what Observe heard.
type outcomes struct {
	mu  sync.Mutex
	got []string
}

func (o *outcomes) observe(kind botgw.MediaKind, outcome string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, string(kind)+" "+outcome)
}

func (o *outcomes) list() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.got, ", ")
}

// slackReader is a reader fetching from a fake Slack (files.slack.com's
// wire format, through the Slack channel) whose pauses between tries are
// recorded instead of slept.
func slackReader(t *testing.T, cfg Config, tr Transcriber) (*Reader, *channeltest.SlackAPI, *[]time.Duration, *outcomes) {
	f := channeltest.NewSlackAPI(t, "xoxb-media-test", "", "U0BOT", "B0BOT")
	p, _ := ratelimittest.New(t)
	ch, err := slack.New(slack.Config{BotToken: "xoxb-media-test", SigningSecret: "s", APIURL: f.URL}, slack.Env{Pacer: p}, discard())
	if err != nil {
		t.Fatal(err)
	}
	o := &outcomes{}
	r := New(cfg, Deps{Fetchers: map[string]botgw.MediaFetcher{"slack": ch.(botgw.MediaFetcher)}, Transcriber: tr, Observe: o.observe, Log: discard()})
	var pauses []time.Duration
	r.sleep = func(_ context.Context, d time.Duration) bool { pauses = append(pauses, d); return true }
	return r, f, &pauses, o
}

func photoFrom(f *channeltest.SlackAPI, id string, data []byte, caption string) botgw.Inbound {
	file := f.AddFile(id, id+".jpg", "image/jpeg", data, nil)
	return botgw.Inbound{Chat: botgw.ChatKey{Channel: "slack", ID: "D024BE91L"}, ID: id, Text: caption,
		Media: &botgw.Media{Kind: botgw.MediaPhoto, Ref: file["url_private_download"].(string), Size: int64(len(data))}}
}

// A download that fails is tried three times, 0.5 s then 1 s apart; the
// photo then reaches the model. When all three fail, the player gets the
// notice and the message is its marker and caption, with no image.
func TestDownloadsAreTriedThreeTimesWithBackoff(t *testing.T) {
	r, f, pauses, o := slackReader(t, Config{Images: true}, nil)
	in := photoFrom(f, "F0RETRY01", photoBytes, "is this it?")
	f.FailDownloads(2)
	m, notice := r.Read(t.Context(), in)
	if notice != "" || len(m.Images) != 1 || string(m.Images[0].Data) != string(photoBytes) || m.Images[0].MIME != "image/jpeg" {
		t.Fatalf("after two failures: %+v, notice %q; want the photo on the third try", m, notice)
	}
	if got := *pauses; len(got) != 2 || got[0] != 500*time.Millisecond || got[1] != time.Second {
		t.Errorf("pauses %v, want [500ms 1s]", got)
	}
	if n := len(f.FileDownloads()); n != 3 {
		t.Errorf("%d downloads, want 3", n)
	}

	*pauses = nil
	f.FailDownloads(10)
	m, notice = r.Read(t.Context(), in)
	if !strings.Contains(notice, "couldn't open your photo") || m.Text != "[photo] is this it?" || m.Media != botgw.MediaPhoto || len(m.Images) != 0 {
		t.Errorf("three failures: %+v, notice %q; want the marker and caption kept and the notice", m, notice)
	}
	if n := len(f.FileDownloads()); n != 6 || len(*pauses) != 2 {
		t.Errorf("%d downloads in all, pauses %v; want 3 more tries, 2 pauses", n, *pauses)
	}
	if got := o.list(); got != "photo ok, photo failed" {
		t.Errorf("observed %q", got)
	}
}

// A photo over max_image_bytes gets the "too large" notice: refused
// before the download when the platform says its size, and cut off while
// reading when it said less. A file the platform no longer has is not
// tried again.
func TestOversizeAndGonePhotos(t *testing.T) {
	r, f, pauses, o := slackReader(t, Config{Images: true, MaxImageBytes: 1000}, nil)
	big := photoFrom(f, "F0BIG0001", append(photoBytes, make([]byte, 5000)...), "")
	hidden := big
	hidden.Media = &botgw.Media{Kind: botgw.MediaPhoto, Ref: big.Media.Ref, Size: 100} // understated
	gone := f.AddGoneFile("F0GONE001", "gone.jpg", "image/jpeg", 500)
	goneIn := photoFrom(f, "F0X", photoBytes, "")
	goneIn.Media.Ref = gone["url_private_download"].(string)

	for _, in := range []botgw.Inbound{big, hidden} {
		m, notice := r.Read(t.Context(), in)
		if !strings.Contains(notice, "too large") || m.Text != "[photo]" || len(m.Images) != 0 {
			t.Errorf("oversize photo: %+v, notice %q; want the too-large notice, the marker kept", m, notice)
		}
	}
	if _, notice := r.Read(t.Context(), goneIn); !strings.Contains(notice, "couldn't open") {
		t.Errorf("deleted file: notice %q", notice)
	}
	if n := len(f.FileDownloads()); n != 2 || len(*pauses) != 0 {
		t.Errorf("%d downloads, pauses %v; want the understated one and the deleted one once each, no retries", n, *pauses)
	}
	if got := o.list(); got != "photo too_large, photo too_large, photo not_found" {
		t.Errorf("observed %q", got)
	}
}

// A transcription server answering 500 (through openai-go, which retries
// it itself) leaves the player a friendly notice and the voice note in
// history as "[voice note]"; a working one gives the transcript as the
// player's words.
func TestTranscriptionFailureIsFriendly(t *testing.T) {
	var calls atomic.Int32
	var fail atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if fail.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":{"message":"The server had an error","type":"server_error"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"text":"I am at the old bridge"}`))
	}))
	defer srv.Close()
	tr, err := openai.NewTranscriber(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	r, f, _, o := slackReader(t, Config{}, tr)
	file := f.AddFile("F0VOICE01", "clip.webm", "audio/webm", []byte("\x1aE\xdf\xa3 webm"), nil)
	in := botgw.Inbound{Chat: botgw.ChatKey{Channel: "slack", ID: "D024BE91L"}, ID: "v1",
		Media: &botgw.Media{Kind: botgw.MediaVoice, Ref: file["url_private_download"].(string), Seconds: 4}}
	if m, notice := r.Read(t.Context(), in); notice != "" || m.Text != "[voice note] I am at the old bridge" {
		t.Errorf("transcribed: %+v, notice %q", m, notice)
	}
	fail.Store(true)
	m, notice := r.Read(t.Context(), in)
	if !strings.Contains(notice, "couldn't listen to your voice note") || m.Text != "[voice note]" || m.Media != botgw.MediaVoice {
		t.Errorf("server 500: %+v, notice %q; want the marker kept and a friendly notice", m, notice)
	}
	long := in
	long.Media = &botgw.Media{Kind: botgw.MediaVoice, Ref: in.Media.Ref, Seconds: 1200}
	if _, notice := r.Read(t.Context(), long); !strings.Contains(notice, "too long") {
		t.Errorf("20-minute voice note: notice %q", notice)
	}
	if calls.Load() != 2 || len(f.FileDownloads()) != 2 {
		t.Errorf("%d transcriptions, %d downloads; want 2 each (the long one is never fetched)", calls.Load(), len(f.FileDownloads()))
	}
	if got := o.list(); got != "voice ok, voice failed, voice too_long" {
		t.Errorf("observed %q", got)
	}
}

// blockingFetcher holds every download until released, counting how many
// are in flight at once.
type blockingFetcher struct {
	release  chan struct{}
	inflight atomic.Int32
	most     atomic.Int32
	started  atomic.Int32
}

func (b *blockingFetcher) FetchMedia(ctx context.Context, _ botgw.Media, _ int64) ([]byte, error) {
	n := b.inflight.Add(1)
	defer b.inflight.Add(-1)
	b.started.Add(1)
	for m := b.most.Load(); n > m && !b.most.CompareAndSwap(m, n); m = b.most.Load() {
	}
	select {
	case <-b.release:
		return photoBytes, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// A burst of photos holds at most Concurrency downloads in flight; the
// others wait for a slot, and all of them are read in the end.
func TestDownloadsHaveTheirOwnBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &blockingFetcher{release: make(chan struct{})}
		defer close(b.release) // a failed check lets the readers finish
		r := New(Config{Images: true, Concurrency: 2}, Deps{Fetchers: map[string]botgw.MediaFetcher{"web": b}, Log: discard()})
		in := botgw.Inbound{Chat: botgw.ChatKey{Channel: "web", ID: "p"}, Media: &botgw.Media{Kind: botgw.MediaPhoto, Ref: "x"}}
		var read atomic.Int32
		for range 5 {
			go func() {
				if m, _ := r.Read(context.Background(), in); len(m.Images) == 1 {
					read.Add(1)
				}
			}()
		}
		synctest.Wait() // every reader is blocked: in a download, or waiting for a slot
		if n := b.started.Load(); n != 2 {
			t.Fatalf("%d downloads started at once, want the bound, 2", n)
		}
		for i := range 5 {
			b.release <- struct{}{}
			synctest.Wait()
			if n, want := b.started.Load(), min(int32(i+3), 5); n != want {
				t.Fatalf("after %d releases %d downloads started, want %d", i+1, n, want)
			}
		}
		if b.most.Load() != 2 || read.Load() != 5 {
			t.Errorf("at most %d in flight, %d photos read; want 2 and 5", b.most.Load(), read.Load())
		}
	})
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
