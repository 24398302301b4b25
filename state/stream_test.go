package state

import (
	"slices"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/redistest"
)

var streamOpts = func() Options {
	o := suiteOpts
	o.Stream = StreamOptions{Sinks: []string{"webhook", "kafka"}}
	return o
}()

func TestStreamMiniredis(t *testing.T) { runStreamSuite(t, miniHarness) }

func TestStreamRedis(t *testing.T) {
	redistest.URL(t)
	runStreamSuite(t, realHarness)
}

func TestStreamRedisCluster(t *testing.T) {
	redistest.ClusterURL(t)
	runStreamSuite(t, clusterHarness)
}

func runStreamSuite(t *testing.T, newH newHarness) {
	tests := []struct {
		name string
		run  func(t *testing.T, h *harness)
	}{
		{"NumberedInOrder", testStreamNumbered},
		{"SeqOutlivesReset", testStreamSeqOutlivesReset},
		{"SeqOutlivesDelivery", testStreamSeqOutlivesDelivery},
		{"AckOfMovedHead", testStreamAckOfMovedHead},
		{"FullDropsTheNewest", testStreamFull},
		{"RefusedCommitRecordsNothing", testStreamRefusedCommit},
		{"RelayLease", testStreamLease},
		{"ResetKeepsPendingSeq", testStreamResetKeepsPendingSeq},
		{"PruneForgetsOldCounters", testStreamPrune},
		{"SeqOutlivesExpiryBeforeDelivery", testStreamExpiryBeforeDelivery},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newH(t, streamOpts))
		})
	}
}

func rec(k botgw.ChatKey, action, text string) botgw.StreamRecord {
	return botgw.StreamRecord{Version: botgw.StreamVersion, ConversationID: k.String(), AgentID: "user:1",
		Action: action, Timestamp: botgw.Millis(time.UnixMilli(1764088802113)), Text: text}
}

// commitRecords runs one turn on k that commits recs (nil blob: a reset)
// with the chat list's activity, as the engine's commits do.
func commitRecords(t *testing.T, h *harness, k botgw.ChatKey, blob []byte, recs ...botgw.StreamRecord) {
	t.Helper()
	snap := mustBegin(t, h, k, "")
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Version: snap.Version, Blob: blob, TTL: time.Hour, Records: recs,
		Activity: &botgw.ChatActivity{At: time.Now(), Preview: "p"}})
	if err := h.s.Release(t.Context(), k, snap.Lease); err != nil {
		t.Fatal(err)
	}
}

// pending reads sink's records of k's unit as the relay does, numbered,
// and returns k's and the whole read.
func pending(t *testing.T, h *harness, sink string, k botgw.ChatKey) ([]botgw.StreamRecord, StreamBatch) {
	t.Helper()
	tag, _ := h.s.unit(k.String())
	b, _, err := h.s.StreamNext(t.Context(), sink, tag, StreamBatch{}, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []botgw.StreamRecord
	for i := range b.Raws {
		r, _, err := b.Record(i)
		if err != nil {
			t.Fatal(err)
		}
		if r.ConversationID == k.String() {
			out = append(out, r)
		}
	}
	return out, b
}

// ack removes the first n records of b, a read of k's unit, for sink.
func ack(t *testing.T, h *harness, sink string, k botgw.ChatKey, b StreamBatch, n int) bool {
	t.Helper()
	tag, _ := h.s.unit(k.String())
	_, ok, err := h.s.StreamNext(t.Context(), sink, tag, b, n, 0)
	if err != nil {
		t.Fatalf("ack of %d records: %v", n, err)
	}
	return ok
}

// deliverAll has both sinks take everything k's unit holds.
func deliverAll(t *testing.T, h *harness, k botgw.ChatKey) {
	t.Helper()
	for _, sink := range []string{"webhook", "kafka"} {
		_, b := pending(t, h, sink, k)
		if !ack(t, h, sink, k, b, len(b.Raws)) {
			t.Fatalf("%s: ack refused", sink)
		}
	}
}

func seqs(recs []botgw.StreamRecord) []int64 {
	var out []int64
	for _, r := range recs {
		out = append(out, r.Seq)
	}
	return out
}

func testStreamNumbered(t *testing.T, h *harness) {
	k := chat("num")
	before := time.Now().Truncate(time.Millisecond)
	commitRecords(t, h, k, []byte("a"), rec(k, "message", "hi"), rec(k, "reply", "hello"))
	after := time.Now()
	commitRecords(t, h, k, []byte("b"), rec(k, "message", "again"))
	backlog, err := h.s.StreamBacklog(t.Context(), "webhook")
	if err != nil {
		t.Fatal(err)
	}
	if backlog.Pending != 3 || backlog.Oldest.Before(before) || backlog.Oldest.After(after) {
		t.Fatalf("backlog = %d records, oldest committed at %v; want 3, the first commit's time (%v to %v)", backlog.Pending, backlog.Oldest, before, after)
	}
	for _, sink := range []string{"webhook", "kafka"} {
		got, _ := pending(t, h, sink, k)
		if !slices.Equal(seqs(got), []int64{1, 2, 3}) {
			t.Fatalf("%s seqs = %v, want [1 2 3]", sink, seqs(got))
		}
		if got[1].ID != "test:num#2" || got[1].Action != "reply" || got[1].Text != "hello" {
			t.Fatalf("%s record 2 = %+v", sink, got[1])
		}
	}
}

func testStreamSeqOutlivesReset(t *testing.T, h *harness) {
	k := chat("reset")
	commitRecords(t, h, k, []byte("a"), rec(k, "message", "hi"))
	commitRecords(t, h, k, nil, rec(k, "reset", ""))
	commitRecords(t, h, k, []byte("c"), rec(k, "message", "fresh"))
	got, _ := pending(t, h, "webhook", k)
	if !slices.Equal(seqs(got), []int64{1, 2, 3}) {
		t.Fatalf("seqs = %v, want [1 2 3] across the reset", seqs(got))
	}
}

func testStreamSeqOutlivesDelivery(t *testing.T, h *harness) {
	k := chat("gone")
	commitRecords(t, h, k, []byte("a"), rec(k, "message", "hi"), rec(k, "reply", "yo"))
	deliverAll(t, h, k)
	if err := h.s.Reset(t.Context(), k); err != nil {
		t.Fatal(err)
	}
	commitRecords(t, h, k, []byte("b"), rec(k, "message", "back"))
	got, _ := pending(t, h, "webhook", k)
	if !slices.Equal(seqs(got), []int64{3}) {
		t.Fatalf("seqs after delivery and reset = %v, want [3]", seqs(got))
	}
}

func testStreamAckOfMovedHead(t *testing.T, h *harness) {
	k := chat("moved")
	commitRecords(t, h, k, []byte("a"), rec(k, "message", "one"), rec(k, "reply", "two"))
	_, b := pending(t, h, "webhook", k)
	if !ack(t, h, "webhook", k, b, 1) {
		t.Fatal("first ack refused")
	}
	if ack(t, h, "webhook", k, b, 1) {
		t.Fatal("second ack of the same head accepted; want refused: the head moved")
	}
	got, _ := pending(t, h, "webhook", k)
	if !slices.Equal(seqs(got), []int64{2}) {
		t.Fatalf("left = %v, want [2]", seqs(got))
	}
}

func testStreamFull(t *testing.T, h *harness) {
	k := chat("full")
	h.s.SetStreamMode("kafka", StreamFull)
	commitRecords(t, h, k, []byte("a"), rec(k, "message", "one"))
	h.s.SetStreamMode("kafka", StreamOK)
	commitRecords(t, h, k, []byte("b"), rec(k, "message", "two"))
	if got, _ := pending(t, h, "kafka", k); !slices.Equal(seqs(got), []int64{1}) || got[0].Text != "two" {
		t.Fatalf("kafka = %+v, want only \"two\", seq 1: record \"one\" dropped while full", got)
	}
	if got, _ := pending(t, h, "webhook", k); !slices.Equal(seqs(got), []int64{1, 2}) {
		t.Fatalf("webhook = %v, want [1 2]", seqs(got))
	}
	if k, w := h.s.StreamDropped("kafka"), h.s.StreamDropped("webhook"); k != 1 || w != 0 {
		t.Fatalf("dropped: kafka %d, webhook %d; want 1, 0", k, w)
	}
}

func testStreamRefusedCommit(t *testing.T, h *harness) {
	k := chat("refused")
	snap := mustBegin(t, h, k, "")
	err := h.s.Commit(t.Context(), k, botgw.Commit{Lease: snap.Lease, Version: snap.Version + 5, Blob: []byte("x"), Records: []botgw.StreamRecord{rec(k, "message", "x")}})
	if err == nil {
		t.Fatal("commit at a wrong version succeeded")
	}
	if got, _ := pending(t, h, "webhook", k); len(got) != 0 {
		t.Fatalf("a refused commit left records %v", seqs(got))
	}
}

func testStreamLease(t *testing.T, h *harness) {
	ctx := t.Context()
	if ok, err := h.s.StreamLease(ctx, "webhook", 3, "a", time.Second); err != nil || !ok {
		t.Fatalf("first lease = %v, %v", ok, err)
	}
	if ok, _ := h.s.StreamLease(ctx, "webhook", 3, "b", time.Second); ok {
		t.Fatal("a second relay took a held lease")
	}
	if ok, _ := h.s.StreamLease(ctx, "webhook", 3, "a", time.Second); !ok {
		t.Fatal("the holder could not keep its lease")
	}
	if err := h.s.StreamReleaseLease(ctx, "webhook", 3, "a"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := h.s.StreamLease(ctx, "webhook", 3, "b", time.Second); !ok {
		t.Fatal("a released lease was not free")
	}
}

// TestSlotTags checks the stream units' tags against a real cluster node:
// a unit's tag lands on the slot of the chats it holds.
func TestSlotTags(t *testing.T) {
	slot := keySlot(t)
	for _, member := range []string{"telegram:123456789", "web:x", "slack:C0123ABC/1700000000.000100"} {
		want := slot("p:{" + member + "}:state")
		if got := int64(tagSlot(member)); got != want {
			t.Fatalf("tagSlot(%s) = %d, CLUSTER KEYSLOT = %d", member, got, want)
		}
		if got := slot("p:stream:webhook:{" + slotTag(uint16(want)) + "}"); got != want {
			t.Fatalf("unit of slot %d lands on %d", want, got)
		}
	}
}

// testStreamResetKeepsPendingSeq resets a chat (Store.Reset) while its
// records still wait: its next record goes on after them.
func testStreamResetKeepsPendingSeq(t *testing.T, h *harness) {
	k := chat("resetpending")
	commitRecords(t, h, k, []byte("a"), rec(k, "message", "one"), rec(k, "reply", "two"))
	if err := h.s.Reset(t.Context(), k); err != nil {
		t.Fatal(err)
	}
	commitRecords(t, h, k, []byte("b"), rec(k, "message", "three"))
	if got, _ := pending(t, h, "webhook", k); !slices.Equal(seqs(got), []int64{1, 2, 3}) {
		t.Fatalf("seqs = %v, want [1 2 3]: a reset never reuses a seq", seqs(got))
	}
}

// testStreamPrune delivers a chat's records, so each sink's seq hash notes
// its last seq, and prunes counters older than an hour from now: the
// chat's are forgotten, and its next record starts again at 1.
func testStreamPrune(t *testing.T, h *harness) {
	k := chat("prune")
	commitRecords(t, h, k, []byte("a"), rec(k, "message", "one"), rec(k, "reply", "two"))
	deliverAll(t, h, k)
	if n, err := h.s.StreamPruneSeqs(t.Context(), time.Now().Add(time.Hour)); err != nil || n != 2 {
		t.Fatalf("StreamPruneSeqs = %d, %v; want the chat's counter of each sink", n, err)
	}
	commitRecords(t, h, k, []byte("b"), rec(k, "message", "later"))
	if got, _ := pending(t, h, "webhook", k); !slices.Equal(seqs(got), []int64{1}) {
		t.Fatalf("seqs after the counter was pruned = %v, want [1]", seqs(got))
	}
}

// testStreamExpiryBeforeDelivery lets a chat's state expire while its
// records still wait for the sink (nothing ever delivered, no sink ever
// behind): its next record goes on after them, never reusing their ids.
func testStreamExpiryBeforeDelivery(t *testing.T, h *harness) {
	k := chat("expired")
	snap := mustBegin(t, h, k, "")
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Version: snap.Version, Blob: []byte("a"), TTL: 200 * time.Millisecond,
		Records: []botgw.StreamRecord{rec(k, "message", "one"), rec(k, "reply", "two")}, Activity: &botgw.ChatActivity{At: time.Now()}})
	if err := h.s.Release(t.Context(), k, snap.Lease); err != nil {
		t.Fatal(err)
	}
	h.advance(400 * time.Millisecond)
	ks, _ := h.s.keys(k)
	if n, err := h.s.c.Exists(t.Context(), ks.state).Result(); err != nil || n != 0 {
		t.Fatalf("state still there after its TTL: %d, %v", n, err)
	}
	commitRecords(t, h, k, []byte("b"), rec(k, "message", "three"))
	for _, sink := range []string{"webhook", "kafka"} {
		if got, _ := pending(t, h, sink, k); !slices.Equal(seqs(got), []int64{1, 2, 3}) {
			t.Fatalf("%s seqs = %v, want [1 2 3]: the state expired before delivery, the ids go on", sink, seqs(got))
		}
	}
}
