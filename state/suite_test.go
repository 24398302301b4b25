package state

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
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
		{"DedupeOfEarlierRelease", testDedupeOfEarlierRelease},
		{"RepairMarksOrphans", testRepairMarksOrphans},
		{"Writable", testWritable},
		{"BeginLeases", testBeginLeases},
		{"LeaseExpires", testLeaseExpires},
		{"RenewLeases", testRenewLeases},
		{"CommitConflict", testCommitConflict},
		{"CommitStaleLease", testCommitStaleLease},
		{"CommitFencedByALaterBegin", testCommitFencedByALaterBegin},
		{"FenceOfEarlierRelease", testFenceOfEarlierRelease},
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
	redisURL(t)
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

// laterReplica is another replica on h's Redis and clock, started after
// h's: it has run start, its look at the data.
func laterReplica(t *testing.T, h *harness, start func(*Store, context.Context) error) *Store {
	t.Helper()
	other := New(h.s.c, h.s.prefix, h.s.opts)
	other.now = h.s.now
	if err := start(other, t.Context()); err != nil {
		t.Fatal(err)
	}
	return other
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

// testFenceOfEarlierRelease: when this release first meets a Redis that
// holds chats, replicas of an earlier release (whose Begin writes no token
// into the state hash) may still run, so for one dedupe window commits
// read the lease key too; on a new deployment they never do.
func testFenceOfEarlierRelease(t *testing.T, h *harness) {
	ctx := t.Context()
	if err := h.s.checkFenceLayout(ctx); err != nil {
		t.Fatal(err)
	}
	if until := h.s.fenceUntil.Load(); until != 0 {
		t.Fatalf("a Redis without chats: commits read the lease key until %d, want never (0)", until)
	}
	if ttl := h.s.c.PTTL(ctx, h.s.fenceMarker()).Val(); ttl <= 0 {
		t.Errorf("fence marker PTTL = %v, want it to expire", ttl)
	}

	k := chat("upgrade")
	first := committedTurn(t, h, k)
	if err := h.s.Release(ctx, k, first.Lease); err != nil {
		t.Fatal(err)
	}
	h.s.c.Del(ctx, h.s.fenceMarker())
	if err := h.s.checkFenceLayout(ctx); err != nil {
		t.Fatal(err)
	}
	other := laterReplica(t, h, (*Store).checkFenceLayout)
	if got, want := other.fenceUntil.Load(), h.s.fenceUntil.Load(); got != want || want == 0 {
		t.Errorf("second replica reads the lease key until %d, the first until %d; want the same, not 0", got, want)
	}

	// overtaken runs a turn whose lease expires and is taken by a replica
	// of the earlier release, and returns its commit's error.
	ks, _ := h.s.keys(k)
	overtaken := func(id string, v int64) error {
		mustAppend(t, h, text(k, id, "again"))
		stale := mustBegin(t, h, k, "")
		h.advance(suiteOpts.LeaseTTL + 100*time.Millisecond)
		if err := h.s.c.Set(ctx, ks.lease, "earlier-release", suiteOpts.LeaseTTL).Err(); err != nil {
			t.Fatal(err)
		}
		err := h.s.Commit(ctx, k, botgw.Commit{Lease: stale.Lease, Version: v, Blob: []byte("stale"), TTL: time.Hour, Consumed: 1})
		h.s.c.Del(ctx, ks.lease)
		return err
	}
	if err := overtaken("m2", 1); !errors.Is(err, botgw.ErrLeaseLost) {
		t.Errorf("during the window, commit of a worker an earlier release's replica overtook = %v, want ErrLeaseLost", err)
	}
	h.advance(suiteOpts.DedupeTTL)
	if err := overtaken("m3", 1); err != nil {
		t.Errorf("after the window, commit = %v, want it applied (the lease key is no longer read)", err)
	}

	// Before going back to an earlier release, an operator sets the
	// decision to a time ahead; the replicas follow at their next look.
	if err := h.s.c.Set(ctx, h.s.fenceMarker(), h.s.nowMs()+time.Hour.Milliseconds(), 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := h.s.checkFenceLayout(ctx); err != nil {
		t.Fatal(err)
	}
	if err := overtaken("m4", 2); !errors.Is(err, botgw.ErrLeaseLost) {
		t.Errorf("after the operator set the fence layout ahead, overtaken commit = %v, want ErrLeaseLost", err)
	}
	if ttl := h.s.c.PTTL(ctx, h.s.fenceMarker()).Val(); ttl <= 0 {
		t.Errorf("fence marker PTTL after the operator's SET and a look = %v, want it to expire again", ttl)
	}
}

// testDedupeOfEarlierRelease: on a Redis where an earlier release kept its
// dedupe records in seen zsets, appends read them (a retry of a message
// that release stored is a duplicate) and write them (so can its replicas,
// during a rolling upgrade) for one dedupe window, then no more; every
// replica makes the same decision.
func testDedupeOfEarlierRelease(t *testing.T, h *harness) {
	ctx := t.Context()
	k := chat("upgrade")
	ks, _ := h.s.keys(k)
	if err := h.s.c.ZAdd(ctx, ks.seen, redis.Z{Score: float64(h.s.nowMs()), Member: "old"}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := h.s.checkDedupeLayout(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Append(ctx, text(k, "old", "retried")); !errors.Is(err, botgw.ErrDuplicate) {
		t.Fatalf("Append of an id the earlier release stored = %v, want ErrDuplicate", err)
	}
	mustAppend(t, h, text(k, "new", "hello"))
	if err := h.s.c.ZScore(ctx, ks.seen, "new").Err(); err != nil {
		t.Errorf("the earlier release's replicas cannot see the new id: ZSCORE = %v", err)
	}

	other := laterReplica(t, h, (*Store).checkDedupeLayout)
	if got, want := other.legacyUntil.Load(), h.s.legacyUntil.Load(); got != want || want == 0 {
		t.Errorf("second replica keeps the seen zsets until %d, the first until %d; want the same, not 0", got, want)
	}

	h.advance(suiteOpts.DedupeTTL + 100*time.Millisecond)
	mustAppend(t, h, text(k, "later", "after the window"))
	if err := h.s.c.ZScore(ctx, ks.seen, "later").Err(); !errors.Is(err, redis.Nil) {
		t.Errorf("ZSCORE of an id appended a window after the upgrade = %v, want redis.Nil (zset no longer kept)", err)
	}
	if err := h.s.Append(ctx, text(k, "new", "again")); err != nil {
		t.Errorf("Append of an id past the window = %v, want it stored", err)
	}
}
