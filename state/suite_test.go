package state

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/redistest"
)

// suiteOpts are short enough for real Redis, where advance sleeps.
var suiteOpts = Options{
	LeaseTTL:   600 * time.Millisecond,
	Visibility: 300 * time.Millisecond,
	DedupeTTL:  1500 * time.Millisecond,
	MaxBatch:   3,
}

// runSuite checks every botgw.Store method against the contract in
// store.go, on the stores newH builds.
func runSuite(t *testing.T, newH newHarness) {
	tests := []struct {
		name string
		run  func(t *testing.T, h *harness)
	}{
		{"AppendDeduplicates", testAppendDeduplicates},
		{"AppendAllOrNothing", testAppendAllOrNothing},
		{"RepairMarksOrphans", testRepairMarksOrphans},
		{"Writable", testWritable},
		{"BeginLeases", testBeginLeases},
		{"LeaseExpires", testLeaseExpires},
		{"RenewLeases", testRenewLeases},
		{"CommitConflict", testCommitConflict},
		{"CommitStaleLease", testCommitStaleLease},
		{"CommitFencedByALaterBegin", testCommitFencedByALaterBegin},
		{"CommitConsumesHead", testCommitConsumesHead},
		{"CommitDeletesState", testCommitDeletesState},
		{"Delivered", testDelivered},
		{"Progress", testProgress},
		{"FinishDelivered", testFinishDelivered},
		{"FinishPartlyDelivered", testFinishPartlyDelivered},
		{"FinishKeepsPace", testFinishKeepsPace},
		{"FinishIdle", testFinishIdle},
		{"FinishIdleKeepsAnothersLease", testFinishIdleKeepsAnothersLease},
		{"FinishMore", testFinishMore},
		{"FinishNextMoreRecovers", testFinishNextMoreRecovers},
		{"FinishNextLeftoversNeedTheLease", testFinishNextLeftoversNeedTheLease},
		{"FinishDiesAfterTheScript", testFinishDiesAfterTheScript},
		{"FinishIdleKeepsLateInput", testFinishIdleKeepsLateInput},
		{"DueReclaims", testDueReclaims},
		{"BusyChatDueWhenLeaseRunsOut", testBusyChatDueWhenLeaseRunsOut},
		{"DueLimit", testDueLimit},
		{"Backlog", testBacklog},
		{"Release", testRelease},
		{"TTLSlides", testTTLSlides},
		{"Reset", testReset},
		{"Info", testInfo},
		{"ListPages", testListPages},
		{"Once", testOnce},
		{"CorruptEntriesDropped", testCorruptEntriesDropped},
		{"BadChatKey", testBadChatKey},
		{"ScriptCacheFlushed", testScriptCacheFlushed},
		{"ChatIndex", testChatIndex},
		{"Broadcasts", testBroadcasts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newH(t, suiteOpts))
		})
	}
}

func TestStoreMiniredis(t *testing.T) { runSuite(t, miniHarness) }

func TestStoreRedis(t *testing.T) {
	redistest.URL(t)
	runSuite(t, realHarness)
}

func testAppendDeduplicates(t *testing.T, h *harness) {
	k := chat("dedupe")
	mustAppend(t, h, text(k, "m1", "hello"))
	if err := h.s.Append(t.Context(), text(k, "m1", "hello again")); !errors.Is(err, botgw.ErrDuplicate) {
		t.Fatalf("second Append of m1 = %v, want ErrDuplicate", err)
	}
	mustAppend(t, h, text(k, "", "no id"))
	mustAppend(t, h, text(k, "", "no id either"))
	h.advance(suiteOpts.DedupeTTL + 100*time.Millisecond)
	mustAppend(t, h, text(k, "m1", "after the window"))
	snap := mustBegin(t, h, k, "")
	want := []string{"hello", "no id", "no id either"}
	if got := texts(snap.Pending); !slices.Equal(got, want) {
		t.Errorf("pending = %q, want %q (MaxBatch 3)", got, want)
	}
}

func testBeginLeases(t *testing.T, h *harness) {
	k := chat("lease")
	snap := mustBegin(t, h, k, "")
	if snap.Lease == "" || snap.Blob != nil || snap.Version != 0 || snap.TTL != 0 {
		t.Fatalf("Begin on a new chat = %+v, want a lease and no state", snap)
	}
	for _, other := range []string{"", "someone-else"} {
		if _, err := h.s.Begin(t.Context(), k, other); !errors.Is(err, botgw.ErrBusy) {
			t.Errorf("Begin(%q) while leased = %v, want ErrBusy", other, err)
		}
	}
	again := mustBegin(t, h, k, snap.Lease)
	if again.Lease != snap.Lease {
		t.Errorf("re-entrant Begin lease = %q, want %q", again.Lease, snap.Lease)
	}
	if err := h.s.Renew(t.Context(), k, snap.Lease); err != nil {
		t.Errorf("Renew by the holder: %v", err)
	}
	if err := h.s.Renew(t.Context(), k, "someone-else"); !errors.Is(err, botgw.ErrLeaseLost) {
		t.Errorf("Renew by another = %v, want ErrLeaseLost", err)
	}
}

func testLeaseExpires(t *testing.T, h *harness) {
	k := chat("expire")
	first := mustBegin(t, h, k, "")
	h.advance(suiteOpts.LeaseTTL * 2 / 3)
	if err := h.s.Renew(t.Context(), k, first.Lease); err != nil {
		t.Fatalf("Renew: %v", err)
	}
	h.advance(suiteOpts.LeaseTTL/3 + 50*time.Millisecond) // past the original expiry, within the renewed one
	if _, err := h.s.Begin(t.Context(), k, ""); !errors.Is(err, botgw.ErrBusy) {
		t.Fatalf("Begin after Renew = %v, want ErrBusy", err)
	}
	h.advance(suiteOpts.LeaseTTL)
	second := mustBegin(t, h, k, "")
	if second.Lease == first.Lease {
		t.Errorf("lease after expiry = the dead worker's %q", first.Lease)
	}
}

func testCommitConflict(t *testing.T, h *harness) {
	k := chat("conflict")
	mustAppend(t, h, text(k, "m1", "hi"))
	snap := mustBegin(t, h, k, "")
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Version: 0, Blob: []byte("one"), TTL: time.Hour, Consumed: 1})
	mustAppend(t, h, text(k, "m2", "again"))
	stale := botgw.Commit{Lease: snap.Lease, Version: 0, Blob: []byte("lost update"), TTL: time.Hour, Consumed: 1,
		Outbox: []botgw.Outbound{{Chat: k, ID: "r1", Text: "reply"}}}
	if err := h.s.Commit(t.Context(), k, stale); !errors.Is(err, botgw.ErrConflict) {
		t.Fatalf("Commit at a moved version = %v, want ErrConflict", err)
	}
	now := mustBegin(t, h, k, snap.Lease)
	if string(now.Blob) != "one" || now.Version != 1 {
		t.Errorf("state after refused commit = %q v%d, want %q v1", now.Blob, now.Version, "one")
	}
	if got := texts(now.Pending); !slices.Equal(got, []string{"again"}) || len(now.Outbox) != 0 {
		t.Errorf("refused commit touched lists: pending %q, outbox %v", got, now.Outbox)
	}
}

func testCommitStaleLease(t *testing.T, h *harness) {
	k := chat("stale")
	mustAppend(t, h, text(k, "m1", "hi"))
	dead := mustBegin(t, h, k, "")
	h.advance(suiteOpts.LeaseTTL + 100*time.Millisecond)
	live := mustBegin(t, h, k, "")
	c := botgw.Commit{Lease: dead.Lease, Blob: []byte("zombie"), TTL: time.Hour, Consumed: 1}
	if err := h.s.Commit(t.Context(), k, c); !errors.Is(err, botgw.ErrLeaseLost) {
		t.Fatalf("Commit with an expired lease = %v, want ErrLeaseLost", err)
	}
	if _, err := h.s.Finish(t.Context(), k, dead.Lease, nil); !errors.Is(err, botgw.ErrLeaseLost) {
		t.Errorf("Finish with an expired lease = %v, want ErrLeaseLost", err)
	}
	if err := h.s.Release(t.Context(), k, dead.Lease); !errors.Is(err, botgw.ErrLeaseLost) {
		t.Errorf("Release with an expired lease = %v, want ErrLeaseLost", err)
	}
	snap := mustBegin(t, h, k, live.Lease)
	if snap.Blob != nil || len(snap.Pending) != 1 {
		t.Errorf("after a fenced commit: blob %q, %d pending; want no blob, 1 pending", snap.Blob, len(snap.Pending))
	}
}

// testCommitFencedByALaterBegin: on a chat with a state, a worker whose
// lease expired cannot commit once another has begun, and its turn leaves
// no trace; one whose lease expired with nobody else beginning still can.
func testCommitFencedByALaterBegin(t *testing.T, h *harness) {
	k := chat("fenced")
	first := committedTurn(t, h, k)
	if err := h.s.Release(t.Context(), k, first.Lease); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, h, text(k, "m2", "again"))
	dead := mustBegin(t, h, k, "")
	h.advance(suiteOpts.LeaseTTL + 100*time.Millisecond)
	live := mustBegin(t, h, k, "")
	zombie := botgw.Commit{Lease: dead.Lease, Version: 1, Blob: []byte("zombie"), TTL: time.Hour, Consumed: 1,
		Outbox: []botgw.Outbound{{Chat: k, ID: "z1", Text: "zombie reply"}}}
	if err := h.s.Commit(t.Context(), k, zombie); !errors.Is(err, botgw.ErrLeaseLost) {
		t.Fatalf("Commit by a worker whose chat another began = %v, want ErrLeaseLost", err)
	}
	mustCommit(t, h, k, botgw.Commit{Lease: live.Lease, Version: 1, Blob: []byte("live"), TTL: time.Hour, Consumed: 1})
	snap := mustBegin(t, h, k, live.Lease)
	if string(snap.Blob) != "live" || snap.Version != 2 || len(snap.Pending) != 0 || len(snap.Outbox) != 0 {
		t.Errorf("after the fenced commit: %q v%d, %d pending, outbox %v; want \"live\" v2 and nothing left",
			snap.Blob, snap.Version, len(snap.Pending), outIDs(snap.Outbox))
	}

	mustAppend(t, h, text(k, "m3", "slow"))
	h.advance(suiteOpts.LeaseTTL + 100*time.Millisecond) // live's lease expires, nobody takes the chat
	mustCommit(t, h, k, botgw.Commit{Lease: live.Lease, Version: 2, Blob: []byte("slow"), TTL: time.Hour, Consumed: 1})
}
