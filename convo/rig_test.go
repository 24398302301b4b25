package convo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/convo/codec"
	"github.com/botgw/botgw/internal/syncbuf"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/state/redistest"
)

// fastStore are store timings that let crash tests run in seconds.
var fastStore = state.Options{LeaseTTL: time.Second, Visibility: 500 * time.Millisecond}

// openStore opens the embedded store, or real Redis (under a random key
// prefix, cleaned up after) when real is set; real skips without
// BOTGW_TEST_REDIS_URL.
func openStore(t *testing.T, real bool, opts state.Options) *state.Store {
	t.Helper()
	cfg := state.Config{}
	if real {
		url := redistest.URL(t)
		cfg = state.Config{URL: url, KeyPrefix: "botgwtest-" + randomHex()}
	}
	st, err := state.Open(context.Background(), cfg, opts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
		if real {
			cleanPrefix(st, cfg.KeyPrefix)
		}
		st.Close()
	})
	return st
}

func cleanPrefix(st *state.Store, prefix string) {
	ctx := context.Background()
	keys, _ := st.Client().Keys(ctx, prefix+":*").Result()
	if len(keys) > 0 {
		st.Client().Del(ctx, keys...)
	}
}

func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// rig is one engine (one replica) with a fake provider and a recording
// channel named "test".
type rig struct {
	eng   *Engine
	store botgw.Store
	prov  *fake.Provider
	ch    *channeltest.Recorder
	logs  *syncbuf.Buffer
}

// newRig starts the engine; each of with sets its dependencies up first, so
// no test changes a running engine.
func newRig(t *testing.T, st botgw.Store, prov *fake.Provider, cfg Config, with ...func(*Engine)) *rig {
	t.Helper()
	return newRigWith(t, st, prov, prov, cfg, with...)
}

// newRigWith is newRig with the engine calling model (prov behind a
// wrapper such as providers/limit).
func newRigWith(t *testing.T, st botgw.Store, prov *fake.Provider, model botgw.Provider, cfg Config, with ...func(*Engine)) *rig {
	t.Helper()
	r := &rig{store: st, prov: prov, ch: channeltest.NewRecorder("test"), logs: &syncbuf.Buffer{}}
	if cfg.SystemPrompt == "" {
		cfg.SystemPrompt = "You are a test assistant."
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 100 * time.Millisecond
	}
	log := slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	eng, err := New(cfg, Deps{Store: st, Provider: model, Channels: map[string]botgw.Channel{"test": r.ch}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range with {
		f(eng)
	}
	r.eng = eng
	ctx, cancel := context.WithCancel(context.Background())
	go eng.Run(ctx)
	t.Cleanup(func() {
		cancel()
		closeCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = eng.Close(closeCtx)
	})
	return r
}

var testChat = botgw.ChatKey{Channel: "test", ID: "player1"}

// sendThrough makes the rig's engine send through the channel wrap
// returns, given the rig's recorder to pass sends on to.
func sendThrough(wrap func(botgw.Channel) botgw.Channel) func(*Engine) {
	return func(e *Engine) { e.deps.Channels["test"] = wrap(e.deps.Channels["test"]) }
}

// withClock makes the rig's engine read and wait on c.
func withClock(c Clock) func(*Engine) {
	return func(e *Engine) { e.clock = c }
}

// say delivers a user message as a channel would.
func (r *rig) say(t *testing.T, k botgw.ChatKey, id, text string) {
	t.Helper()
	in := botgw.Inbound{Chat: k, Kind: botgw.KindText, ID: id, UserID: "u1", Text: text}
	if err := r.eng.Handle(context.Background(), in); err != nil {
		t.Fatalf("handle %s: %v", id, err)
	}
}

// decoded reads and decodes the stored state of k.
func decoded(t *testing.T, st botgw.Store, k botgw.ChatKey) *codec.Decoded {
	t.Helper()
	info, err := st.Info(context.Background(), k)
	if err != nil {
		t.Fatalf("info %s: %v", k, err)
	}
	d, err := codec.Inspect(info.Blob)
	if err != nil {
		t.Fatalf("decode %s: %v", k, err)
	}
	return d
}

// history decodes the stored conversation of k.
func history(t *testing.T, st botgw.Store, k botgw.ChatKey) []botgw.Message {
	t.Helper()
	return decoded(t, st, k).History
}

func userTexts(h []botgw.Message) []string {
	var out []string
	for _, m := range h {
		if m.Role == botgw.RoleUser {
			out = append(out, m.Text)
		}
	}
	return out
}

func msgID(i int) string { return fmt.Sprintf("m%03d", i) }
