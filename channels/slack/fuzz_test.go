package slack

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/botgw/botgw"
)

// slackSamples are the Events API samples in testdata.
func slackSamples(f *testing.F) [][]byte {
	files, _ := filepath.Glob("testdata/*.json")
	var out [][]byte
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// checkDelivered fails on a delivered message without a chat or an id.
func checkDelivered(t *testing.T, got []botgw.Inbound) {
	for _, in := range got {
		if in.Chat.Channel != name || in.Chat.ID == "" || in.ID == "" {
			t.Fatalf("delivered %+v", in)
		}
	}
}

// FuzzEventsWebhook posts arbitrary signed bodies, seeded with real Events
// API requests. The handler answers 200, 400 or 413 and never panics.
func FuzzEventsWebhook(f *testing.F) {
	for _, b := range slackSamples(f) {
		f.Add(b)
	}
	c := newTestAdapter(f, newFakeSlack(f))
	var got []botgw.Inbound
	h := c.WebhookHandler(func(_ context.Context, in botgw.Inbound) error { got = append(got, in); return nil })
	f.Fuzz(func(t *testing.T, body []byte) {
		got = got[:0]
		w := httptest.NewRecorder()
		h.ServeHTTP(w, signedRequest(body, time.Now(), testSecret))
		switch w.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("status %d %s", w.Code, w.Body)
		}
		checkDelivered(t, got)
	})
}

// FuzzSocketEnvelope feeds Socket Mode envelopes (events and interactions)
// through the parsing slack-go does and the adapter's own: the envelope id
// read for an ack, the event stored. Nothing panics.
func FuzzSocketEnvelope(f *testing.F) {
	for _, b := range slackSamples(f) {
		env, _ := json.Marshal(map[string]any{"envelope_id": "e1", "type": "events_api", "payload": json.RawMessage(b)})
		f.Add(env)
	}
	f.Add([]byte(`{"envelope_id":"e2","type":"interactive","payload":{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"a"}]}}`))
	f.Add([]byte(`{"envelope_id":"e3","type":"slash_commands","payload":{"command":"/x","text":"hi"}}`))
	c := newTestAdapter(f, newFakeSlack(f))
	var got []botgw.Inbound
	deliver := func(_ context.Context, in botgw.Inbound) error { got = append(got, in); return nil }
	f.Fuzz(func(t *testing.T, raw []byte) {
		got = got[:0]
		_ = envelopeID(raw)
		var req socketmode.Request
		if json.Unmarshal(raw, &req) != nil {
			return
		}
		switch req.Type {
		case socketmode.RequestTypeEventsAPI:
			if ev, err := slackevents.ParseEvent(req.Payload, slackevents.OptionNoVerifyToken()); err == nil {
				c.store(t.Context(), ev, deliver)
			}
		case socketmode.RequestTypeInteractive:
			var cb slack.InteractionCallback
			_ = json.Unmarshal(req.Payload, &cb)
		case socketmode.RequestTypeSlashCommands:
			var cmd slack.SlashCommand
			_ = json.Unmarshal(req.Payload, &cmd)
		}
		checkDelivered(t, got)
	})
}
