package state

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/redistest"
)

// The stages of a turn against the store, one benchmark each, and a whole
// turn (ingress append, begin, commit, finish) with the Redis commands it
// costs. Run them with -benchmem; on real Redis (BOTGW_TEST_REDIS_URL) the
// "redis-cmds/op" metric counts commands inside scripts too.

func BenchmarkBegin(b *testing.B) {
	benchStores(b, func(b *testing.B, h *harness) {
		k := chat("bench-begin")
		snap := benchChatWithState(b, h, k)
		for b.Loop() {
			if _, err := h.s.Begin(b.Context(), k, snap.Lease); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkFinish(b *testing.B) {
	benchStores(b, func(b *testing.B, h *harness) {
		k := chat("bench-finish")
		snap := benchChatWithState(b, h, k)
		out := []botgw.Outbound{{Chat: k, ID: "r", Text: strings.Repeat("a reply ", 20)}}
		c := botgw.Commit{Lease: snap.Lease, Version: 1, Blob: snap.Blob, TTL: time.Hour, Outbox: out}
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			out[0].ID = "r" + strconv.Itoa(i)
			if err := h.s.Commit(b.Context(), k, c); err != nil {
				b.Fatal(err)
			}
			c.Version++
			b.StartTimer()
			if _, err := h.s.Finish(b.Context(), k, snap.Lease, []string{out[0].ID}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			again, err := h.s.Begin(b.Context(), k, "") // take the released lease again
			if err != nil {
				b.Fatal(err)
			}
			snap.Lease, c.Lease = again.Lease, again.Lease
			b.StartTimer()
		}
	})
}

// BenchmarkTurn is one turn of a busy chat as the engine runs it: commit
// (state and reply), the ingress appending the next message, and
// FinishNext (delivered reply removed, next turn's input read).
func BenchmarkTurn(b *testing.B) {
	benchStores(b, func(b *testing.B, h *harness) {
		k := chat("bench-turn")
		snap := benchChatWithState(b, h, k)
		if err := h.s.Append(b.Context(), text(k, "first", "hello")); err != nil {
			b.Fatal(err)
		}
		if snap, _ = h.s.Begin(b.Context(), k, snap.Lease); len(snap.Pending) != 1 {
			b.Fatalf("pending = %d, want 1", len(snap.Pending))
		}
		blob := make([]byte, 4<<10)
		before := redistest.CommandCount(b, h.s.c)
		var turns float64
		for i := 0; b.Loop(); i++ {
			id := strconv.Itoa(i)
			c := botgw.Commit{Lease: snap.Lease, Version: snap.Version, Blob: blob, TTL: time.Hour,
				Consumed: len(snap.Pending), Outbox: []botgw.Outbound{{Chat: k, ID: "re-" + id, Text: "head north"}}}
			if err := h.s.Commit(b.Context(), k, c); err != nil {
				b.Fatal(err)
			}
			if err := h.s.Append(b.Context(), text(k, "in"+id, "and then?")); err != nil {
				b.Fatal(err)
			}
			next, more, err := h.s.FinishNext(b.Context(), k, snap.Lease, []string{"re-" + id}, time.Time{})
			if err != nil || !more || len(next.Pending) != 1 {
				b.Fatalf("FinishNext = %d pending, %v, %v; want 1, true", len(next.Pending), more, err)
			}
			next.Version = snap.Version + 1 // Kept: the caller goes on with what it committed
			snap = next
			turns++
		}
		if after := redistest.CommandCount(b, h.s.c); after >= 0 && before >= 0 {
			b.ReportMetric(float64(after-before)/turns, "redis-cmds/op")
		}
	})
}

// benchChatWithState gives k a committed state of a few KiB and returns a
// snapshot holding its lease.
func benchChatWithState(b *testing.B, h *harness, k botgw.ChatKey) botgw.Snapshot {
	b.Helper()
	snap, err := h.s.Begin(b.Context(), k, "")
	if err != nil {
		b.Fatal(err)
	}
	blob := make([]byte, 4<<10)
	if err := h.s.Commit(b.Context(), k, botgw.Commit{Lease: snap.Lease, Blob: blob, TTL: time.Hour}); err != nil {
		b.Fatal(err)
	}
	snap.Version, snap.Blob = 1, blob
	return snap
}
