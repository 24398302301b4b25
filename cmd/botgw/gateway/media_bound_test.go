package gateway

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/botgw/botgw"
)

// heldFiles is a channel whose downloads wait until released, counting
// how many started.
type heldFiles struct {
	release chan struct{}
	started atomic.Int32
}

func (h *heldFiles) Name() string                               { return "web" }
func (h *heldFiles) Send(context.Context, botgw.Outbound) error { return nil }
func (h *heldFiles) FetchMedia(ctx context.Context, _ botgw.Media, _ int64) ([]byte, error) {
	h.started.Add(1)
	select {
	case <-h.release:
		return []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00 the old bridge"), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// media.max_concurrency is how many photos a replica downloads at once: a
// burst larger than it waits for slots (32 without the key).
func TestMediaMaxConcurrencyBoundsDownloads(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want int32
	}{
		{"media: {transcription: {kind: off}}\n", 32},
		{"media: {max_concurrency: 3, transcription: {kind: off}}\n", 3},
	} {
		cfg := DefaultConfig()
		if err := decodeYAML(tc.yaml, &cfg); err != nil {
			t.Fatal(err)
		}
		if err := cfg.Media.validate(cfg.Provider); err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		synctest.Test(t, func(t *testing.T) {
			files := &heldFiles{release: make(chan struct{})}
			defer close(files.release) // every download ends
			r, err := buildMedia(cfg, map[string]botgw.Channel{"web": files}, nil, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			in := botgw.Inbound{Chat: botgw.ChatKey{Channel: "web", ID: "p"}, Media: &botgw.Media{Kind: botgw.MediaPhoto, Ref: "x"}}
			for range 40 {
				go r.Read(context.Background(), in)
			}
			synctest.Wait() // each read is downloading or waiting for a slot
			if n := files.started.Load(); n != tc.want {
				t.Errorf("%q: %d downloads at once, want %d", tc.yaml, n, tc.want)
			}
		})
	}
}
