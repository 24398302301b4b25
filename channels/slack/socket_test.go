package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/gorilla/websocket"
)

// fakeSocket is Slack's Socket Mode endpoint: it says hello, sends the
// queued envelopes and reports every acknowledgement it reads.
type fakeSocket struct {
	envelopes []string
	acks      chan string
}

func (s *fakeSocket) serve(w http.ResponseWriter, r *http.Request) {
	// slack-go dials with Origin https://api.slack.com, which Slack accepts.
	up := websocket.Upgrader{CheckOrigin: func(r *http.Request) bool { return r.Header.Get("Origin") == "https://api.slack.com" }}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	hello := `{"type":"hello","num_connections":1,"debug_info":{"host":"applink-7fc4fdbb8b-l8dqk",` +
		`"build_number":118,"approximate_connection_time":18060},"connection_info":{"app_id":"A0KRD7HC3"}}`
	for _, msg := range append([]string{hello}, s.envelopes...) {
		if conn.WriteMessage(websocket.TextMessage, []byte(msg)) != nil {
			return
		}
	}
	for {
		var ack struct {
			EnvelopeID string `json:"envelope_id"`
		}
		if conn.ReadJSON(&ack) != nil {
			return
		}
		s.acks <- ack.EnvelopeID
	}
}

func envelope(t *testing.T, id, sampleName string) string {
	return fmt.Sprintf(`{"envelope_id":%q,"payload":%s,"type":"events_api","accepts_response_payload":false,`+
		`"retry_attempt":0,"retry_reason":""}`, id, sample(t, sampleName))
}

func TestSocketModeAcksOnlyStoredEvents(t *testing.T) {
	f := newFakeSlack(t)
	sock := &fakeSocket{acks: make(chan string, 10), envelopes: []string{
		envelope(t, "env-fails", "app_mention"),
		envelope(t, "env-unknown", "unknown_event"),
		envelope(t, "env-dm", "dm_message"),
	}}
	ws := httptest.NewServer(http.HandlerFunc(sock.serve))
	t.Cleanup(ws.Close)
	f.wsURL = "ws" + strings.TrimPrefix(ws.URL, "http") + "/link/?ticket=1d2c3b4a"

	ch, err := New(Config{BotToken: testBotToken, Mode: ModeSocket, AppToken: testAppToken, APIURL: f.APIURL()}, testPacer(t), discard())
	if err != nil {
		t.Fatal(err)
	}
	var stored []botgw.Inbound
	deliver := func(_ context.Context, in botgw.Inbound) error {
		if in.Chat.ID != "D024BE91L" {
			return errors.New("redis down") // the mention cannot be stored
		}
		stored = append(stored, in)
		return nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- ch.(botgw.Listener).Listen(ctx, deliver) }()

	want := []string{"env-unknown", "env-dm"} // acked in order; env-fails never
	for _, w := range want {
		select {
		case got := <-sock.acks:
			if got != w {
				t.Fatalf("ack %q, want %q", got, w)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no ack for %s", w)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Listen returned %v after ctx ended, want nil", err)
	}
	if len(stored) != 1 || stored[0].ID != "1700000000.000100" {
		t.Errorf("stored %+v, want the DM", stored)
	}
	if ch.(botgw.Health).Health() != nil {
		t.Errorf("health %v after connecting", ch.(botgw.Health).Health())
	}
}
