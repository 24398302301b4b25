package telegram

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/state/ratelimit/ratelimittest"
)

const (
	testToken  = "7000000001:AAH-test_Token"
	testSecret = "s3cret-Token_1"
	testBot    = "botgw_test_bot"
)

// testAdapter builds an adapter against the fake, ran Start (getMe), and
// records every wait instead of sleeping.
type testAdapter struct {
	*adapter
	ch     botgw.Channel
	api    *channeltest.BotAPI
	slept  []time.Duration
	sleepM sync.Mutex
	clock  *ratelimittest.Clock // the send limits' fake clock
}

func newTestAdapter(t testing.TB, cfg Config, publicURL string) *testAdapter {
	t.Helper()
	api := channeltest.NewBotAPI(t, testToken, testBot)
	cfg.Token, cfg.APIURL = testToken, api.URL
	if cfg.Mode != ModePolling {
		cfg.WebhookSecret = testSecret
	}
	pacer, clock := ratelimittest.New(t)
	ch, err := New(cfg, publicURL, pacer, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ta := &testAdapter{ch: ch, api: api, clock: clock}
	switch c := ch.(type) {
	case webhookChannel:
		ta.adapter = c.adapter
	case pollingChannel:
		ta.adapter = c.adapter
	}
	ta.sleep = func(ctx context.Context, d time.Duration) error {
		ta.sleepM.Lock()
		defer ta.sleepM.Unlock()
		if d > 0 {
			ta.slept = append(ta.slept, d)
		}
		return ctx.Err()
	}
	if err := ta.Start(t.Context()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return ta
}

func readSample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeSample(t *testing.T, name string) *models.Update {
	t.Helper()
	var u models.Update
	if err := json.Unmarshal(readSample(t, name), &u); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &u
}
