package convo

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/media"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/providers/openai"
)

// oggFetcher hands out a voice note's bytes for any reference.
type oggFetcher struct{}

func (oggFetcher) FetchMedia(context.Context, botgw.Media, int64) ([]byte, error) {
	return []byte("OggS\x00\x02 a voice note"), nil
}

// A burst of voice notes waiting at a slow transcription server (more
// than the reader's 32 slots) never holds a text turn of another chat
// back: the text is answered while every voice note still waits, and each
// voice note is answered once the server replies.
func TestVoiceNotesDoNotHoldTextTurnsBack(t *testing.T) {
	started, release := make(chan struct{}, 100), make(chan struct{})
	var given atomic.Int32 // transcriptions abandoned by their turn
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
			given.Add(1)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"text":"I am at the old bridge"}`))
	}))
	defer srv.Close()
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // before the server closes: defers run last first
	tr, err := openai.NewTranscriber(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	reader := media.New(media.Config{}, media.Deps{Fetchers: map[string]botgw.MediaFetcher{"test": oggFetcher{}}, Transcriber: tr})
	// the voice turns renew their leases while they wait, as a gateway's do
	cfg := Config{}
	r := newRig(t, openStore(t, false, fastStore), fake.New(), cfg, func(e *Engine) { e.deps.Media = reader })
	const voices = 40
	for i := range voices {
		in := botgw.Inbound{Chat: botgw.ChatKey{Channel: "test", ID: fmt.Sprintf("voice%d", i)}, Kind: botgw.KindText,
			ID: "v1", UserID: "u1", Media: &botgw.Media{Kind: botgw.MediaVoice, Ref: "v", Seconds: 3}}
		if err := r.eng.Handle(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.After(30 * time.Second)
	for range 32 { // the reader's bound: 32 at the server, the rest waiting for a slot
		select {
		case <-started:
		case <-deadline:
			t.Fatal("the voice notes never reached the transcription server")
		}
	}
	text := botgw.ChatKey{Channel: "test", ID: "text"}
	r.say(t, text, "t1", "where now?")
	if sent := r.ch.Wait(t, 1, 30*time.Second); sent[0].Chat != text {
		t.Fatalf("first reply went to %s, want the text chat's while the voice notes wait", sent[0].Chat)
	}
	if n := given.Load(); n > 0 {
		t.Fatalf("the text was answered only after %d voice turns gave up their transcription", n)
	}
	free() // the server answers every transcription
	if sent := r.ch.Wait(t, voices+1, 30*time.Second); len(sent) != voices+1 {
		t.Errorf("%d replies, want one per chat", len(sent))
	}
}
