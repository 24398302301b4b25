package state

import (
	"fmt"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/redistest"
)

func benchStores(b *testing.B, run func(b *testing.B, h *harness)) {
	b.Run("miniredis", func(b *testing.B) { run(b, miniHarness(b, Options{})) })
	b.Run("redis", func(b *testing.B) {
		redistest.URL(b)
		run(b, realHarness(b, Options{}))
	})
}

func BenchmarkAppend(b *testing.B) {
	benchStores(b, func(b *testing.B, h *harness) {
		k := chat("bench-append")
		i := 0
		for b.Loop() {
			i++
			if err := h.s.Append(b.Context(), text(k, fmt.Sprint(i), "a message of typical length")); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkCommit(b *testing.B) {
	benchStores(b, func(b *testing.B, h *harness) {
		k := chat("bench-commit")
		snap, err := h.s.Begin(b.Context(), k, "")
		if err != nil {
			b.Fatal(err)
		}
		blob := make([]byte, 8<<10) // a compressed history of a few dozen turns
		c := botgw.Commit{Lease: snap.Lease, Blob: blob, TTL: time.Hour}
		for b.Loop() {
			if err := h.s.Commit(b.Context(), k, c); err != nil {
				b.Fatal(err)
			}
			c.Version++
		}
	})
}
