package telegram

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/ratelimit/ratelimittest"
)

// FuzzWebhookUpdate posts arbitrary bodies, seeded with real updates, to
// the webhook with the right secret. The handler answers 200 (stored or
// ignored), 400 or 413, never panics, and what it delivers is a chat
// message with a chat key.
func FuzzWebhookUpdate(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"update_id":1,"message":{"message_id":1,"date":-99999999999,"chat":{"id":1,"type":"private"},"text":"x"}}`))
	pacer, _ := ratelimittest.New(f)
	ch, err := New(Config{Token: testToken, WebhookSecret: testSecret, APIURL: "http://127.0.0.1:1"}, "", pacer, slog.New(slog.DiscardHandler))
	if err != nil {
		f.Fatal(err)
	}
	var got []botgw.Inbound
	h := ch.(botgw.WebhookReceiver).WebhookHandler(func(_ context.Context, in botgw.Inbound) error {
		got = append(got, in)
		return nil
	})
	f.Fuzz(func(t *testing.T, body []byte) {
		got = got[:0]
		w := post(t, h, testSecret, body)
		switch w.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("status %d %s", w.Code, w.Body)
		}
		for _, in := range got {
			if in.Chat.Channel != Name || in.Chat.ID == "" || in.ID == "" {
				t.Fatalf("delivered %+v", in)
			}
			if _, err := json.Marshal(in.Chat); err != nil {
				t.Fatalf("chat key %v: %v", in.Chat, err)
			}
		}
	})
}
