package slack

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

func envelope(t *testing.T, id, sampleName string) string {
	return fmt.Sprintf(`{"envelope_id":%q,"payload":%s,"type":"events_api","accepts_response_payload":false,`+
		`"retry_attempt":0,"retry_reason":""}`, id, sample(t, sampleName))
}

func TestSocketModeAcksOnlyStoredEvents(t *testing.T) {
	f := newFakeSlack(t)
	sock := channeltest.NewSlackSocket(t,
		envelope(t, "env-fails", "app_mention"),
		envelope(t, "env-unknown", "unknown_event"),
		envelope(t, "env-dm", "dm_message"),
	)
	f.UseSocket(sock)

	ch, err := New(Config{BotToken: testBotToken, Mode: ModeSocket, AppToken: testAppToken, APIURL: f.URL}, Env{Pacer: testPacer(t)}, discard())
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
		case got := <-sock.Acks:
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
