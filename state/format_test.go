package state

import (
	"slices"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/redistest"
)

// TestFormatCompat runs the checks of what the cheaper scripts assume on
// both backends: the delivered replies being the head of the outbox, and
// the state hash keeping its expiry.
func TestFormatCompat(t *testing.T) {
	backends := map[string]newHarness{"miniredis": miniHarness, "redis": realHarness}
	for name, newH := range backends {
		t.Run(name, func(t *testing.T) {
			if name == "redis" {
				redistest.URL(t)
			}
			t.Run("FinishDeliveredNotAtHead", func(t *testing.T) { testFinishNotAtHead(t, newH(t, suiteOpts)) })
			t.Run("StateOfPreviousRelease", func(t *testing.T) { testPreviousReleaseState(t, newH(t, suiteOpts)) })
			t.Run("FinishNextReads", func(t *testing.T) { testFinishNextReads(t, newH(t, suiteOpts)) })
			t.Run("DedupeRecordsExpire", func(t *testing.T) { testDedupeRecordsExpire(t, newH(t, suiteOpts)) })
			t.Run("ExpiryKeptOrDropped", func(t *testing.T) { testExpiryKeptOrDropped(t, newH(t, suiteOpts)) })
		})
	}
}

// testFinishNotAtHead: replies delivered out of order, or only a later
// one, are still removed by id and the others kept.
func testFinishNotAtHead(t *testing.T, h *harness) {
	k := chat("finish-not-head")
	mustAppend(t, h, text(k, "m1", "hi"))
	snap := mustBegin(t, h, k, "")
	out := []botgw.Outbound{{Chat: k, ID: "r1", Text: "one"}, {Chat: k, ID: "r2", Text: "two"}, {Chat: k, ID: "r3", Text: "three"}}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Consumed: 1, Outbox: out})
	more, err := h.s.Finish(t.Context(), k, snap.Lease, []string{"r2"})
	if err != nil || !more {
		t.Fatalf("Finish delivering r2 only = %v, %v; want true (r1, r3 left), nil", more, err)
	}
	if got := outIDs(mustBegin(t, h, k, snap.Lease).Outbox); !slices.Equal(got, []string{"r1", "r3"}) {
		t.Fatalf("outbox after delivering r2 = %q, want [r1 r3]", got)
	}
	if more, err := h.s.Finish(t.Context(), k, snap.Lease, []string{"r3", "r1"}); err != nil || more {
		t.Fatalf("Finish delivering r3, r1 = %v, %v; want false, nil", more, err)
	}
	if left := mustBegin(t, h, k, "").Outbox; len(left) != 0 {
		t.Errorf("outbox after delivering the rest out of order = %q, want empty", outIDs(left))
	}
}

// testPreviousReleaseState: a state hash as the previous release wrote it
// (version and blob, expiry only on the key) is read with its TTL, and the
// next commit continues it.
func testPreviousReleaseState(t *testing.T, h *harness) {
	k := chat("old-state")
	ks, _ := h.s.keys(k)
	c := h.s.c
	if err := c.HSet(t.Context(), ks.state, "v", "7", "b", "old blob").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.PExpire(t.Context(), ks.state, time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	snap := mustBegin(t, h, k, "")
	if string(snap.Blob) != "old blob" || snap.Version != 7 || snap.TTL <= 59*time.Minute || snap.TTL > time.Hour {
		t.Fatalf("Begin on a previous release's state = version %d, blob %q, TTL %v; want 7, \"old blob\", about 1h",
			snap.Version, snap.Blob, snap.TTL)
	}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Version: 7, Blob: []byte("new blob"), TTL: 2 * time.Hour})
	again := mustBegin(t, h, k, snap.Lease)
	if string(again.Blob) != "new blob" || again.Version != 8 || again.TTL <= time.Hour || again.TTL > 2*time.Hour {
		t.Errorf("Begin after committing on it = version %d, blob %q, TTL %v; want 8, \"new blob\", about 2h",
			again.Version, again.Blob, again.TTL)
	}
}

// testExpiryKeptOrDropped: commits close together keep the state's expiry
// within 1% of the TTL; a commit without TTL makes the state permanent and
// one with a TTL again makes it expire.
func testExpiryKeptOrDropped(t *testing.T, h *harness) {
	k := chat("expiry")
	ks, _ := h.s.keys(k)
	snap := mustBegin(t, h, k, "")
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("1"), TTL: time.Hour})
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Version: 1, Blob: []byte("2"), TTL: time.Hour})
	if d := h.s.c.PTTL(t.Context(), ks.state).Val(); d <= time.Hour-36*time.Second || d > time.Hour {
		t.Fatalf("PTTL after two commits with a 1h TTL = %v, want within 1%% of 1h", d)
	}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Version: 2, Blob: []byte("3")})
	if d := h.s.c.PTTL(t.Context(), ks.state).Val(); d != -1 {
		t.Fatalf("PTTL after a commit without TTL = %v, want -1 (no expiry)", d)
	}
	if again := mustBegin(t, h, k, snap.Lease); again.TTL != 0 || string(again.Blob) != "3" {
		t.Fatalf("Begin after a commit without TTL = TTL %v, blob %q; want 0, \"3\"", again.TTL, again.Blob)
	}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Version: 3, Blob: []byte("4"), TTL: time.Minute})
	if d := h.s.c.PTTL(t.Context(), ks.state).Val(); d <= 0 || d > time.Minute {
		t.Errorf("PTTL after a commit with a 1m TTL = %v, want in (0, 1m]", d)
	}
}

// testFinishNextReads: with input waiting, FinishNext keeps the lease and
// returns the next turn's input (on a single node without the state, which
// the caller has from its commit; on a cluster what Begin would); with
// none, it releases the chat.
func testFinishNextReads(t *testing.T, h *harness) {
	k := chat("finish-next")
	mustAppend(t, h, text(k, "m1", "hi"))
	snap := mustBegin(t, h, k, "")
	out := []botgw.Outbound{{Chat: k, ID: "r1", Text: "hello"}}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s1"), TTL: time.Hour, Consumed: 1, Outbox: out})
	mustAppend(t, h, text(k, "m2", "again"))
	next, more, err := h.s.FinishNext(t.Context(), k, snap.Lease, []string{"r1"}, time.Time{})
	if err != nil || !more {
		t.Fatalf("FinishNext with m2 waiting = %v, %v; want more", more, err)
	}
	if next.Lease != snap.Lease || !slices.Equal(texts(next.Pending), []string{"again"}) || len(next.Outbox) != 0 {
		t.Fatalf("FinishNext snapshot = %+v; want the same lease, pending [again], empty outbox", next)
	}
	if h.s.cluster {
		if next.Kept || next.Version != 1 || string(next.Blob) != "s1" || next.TTL <= 0 {
			t.Errorf("FinishNext snapshot on a cluster = %+v; want the state read again (version 1, blob s1)", next)
		}
	} else if !next.Kept || next.Version != 0 || next.Blob != nil {
		t.Errorf("FinishNext snapshot on a single node = %+v; want Kept, without the state", next)
	}
	if _, err := h.s.Begin(t.Context(), k, ""); err == nil {
		t.Fatal("Begin by another worker after FinishNext kept the chat succeeded; want ErrBusy")
	}
	mustCommit(t, h, k, botgw.Commit{Lease: next.Lease, Version: 1, Blob: []byte("s2"), TTL: time.Hour, Consumed: 1})
	if _, more, err := h.s.FinishNext(t.Context(), k, next.Lease, nil, time.Time{}); err != nil || more {
		t.Fatalf("FinishNext on an idle chat = %v, %v; want false, nil", more, err)
	}
	if got := mustBegin(t, h, k, ""); got.Lease == next.Lease {
		t.Errorf("lease after FinishNext on an idle chat = the old one; want it released")
	}
}

// testDedupeRecordsExpire: each id is remembered in a key of its own that
// expires with the dedupe window.
func testDedupeRecordsExpire(t *testing.T, h *harness) {
	k := chat("records")
	ks, _ := h.s.keys(k)
	mustAppend(t, h, text(k, "m1", "first"))
	if d := h.s.c.PTTL(t.Context(), ks.ids+"m1").Val(); d <= 0 || d > suiteOpts.DedupeTTL {
		t.Errorf("PTTL of m1's dedupe record = %v, want in (0, %v]", d, suiteOpts.DedupeTTL)
	}
	h.advance(suiteOpts.DedupeTTL + 100*time.Millisecond)
	if n := h.s.c.Exists(t.Context(), ks.ids+"m1").Val(); n != 0 {
		t.Errorf("m1's dedupe record outlived the window (exists = %d)", n)
	}
}
