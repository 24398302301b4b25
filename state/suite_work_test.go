package state

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

func testCommitConsumesHead(t *testing.T, h *harness) {
	k := chat("consume")
	for i, s := range []string{"a", "b", "c", "d"} {
		mustAppend(t, h, text(k, string(rune('1'+i)), s))
	}
	snap := mustBegin(t, h, k, "")
	if got := texts(snap.Pending); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("pending = %q, want the first MaxBatch=3", got)
	}
	mustAppend(t, h, text(k, "5", "e")) // arrives during the turn
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Consumed: len(snap.Pending)})
	next := mustBegin(t, h, k, snap.Lease)
	if got := texts(next.Pending); !slices.Equal(got, []string{"d", "e"}) {
		t.Errorf("pending after consuming 3 = %q, want [d e]", got)
	}
}

func testCommitDeletesState(t *testing.T, h *harness) {
	k := chat("delete")
	snap := mustBegin(t, h, k, "")
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte{}, TTL: time.Hour})
	empty := mustBegin(t, h, k, snap.Lease)
	if empty.Blob == nil || len(empty.Blob) != 0 || empty.Version != 1 {
		t.Fatalf("empty blob read back as %v v%d, want non-nil empty v1", empty.Blob, empty.Version)
	}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Version: 1, Blob: nil})
	gone := mustBegin(t, h, k, snap.Lease)
	if gone.Blob != nil || gone.Version != 0 {
		t.Errorf("state after nil-blob commit = %q v%d, want none", gone.Blob, gone.Version)
	}
}

func testDelivered(t *testing.T, h *harness) {
	k := chat("outbox")
	snap := mustBegin(t, h, k, "")
	out := []botgw.Outbound{{Chat: k, ID: "r1", Text: "one"}, {Chat: k, ID: "r2", Text: "two", Meta: map[string]string{"reply_to": "m1"}}}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Outbox: out})
	got := mustBegin(t, h, k, snap.Lease).Outbox
	if !slices.Equal(outIDs(got), []string{"r1", "r2"}) || got[1].Meta["reply_to"] != "m1" {
		t.Fatalf("outbox = %+v, want r1, r2 with meta", got)
	}
	for _, id := range []string{"r2", "r2", "unknown"} {
		if err := h.s.Delivered(t.Context(), k, snap.Lease, id); err != nil {
			t.Fatalf("Delivered(%s): %v", id, err)
		}
	}
	if got := outIDs(mustBegin(t, h, k, snap.Lease).Outbox); !slices.Equal(got, []string{"r1"}) {
		t.Errorf("outbox after delivering r2 = %q, want [r1]", got)
	}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Version: 1, Blob: []byte("s"), TTL: time.Hour,
		Outbox: []botgw.Outbound{{Chat: k, ID: "r3"}, {Chat: k, ID: "r4"}}})
	if err := h.s.Delivered(t.Context(), k, snap.Lease, "r1", "r4"); err != nil {
		t.Fatalf("Delivered(r1, r4): %v", err)
	}
	if got := outIDs(mustBegin(t, h, k, snap.Lease).Outbox); !slices.Equal(got, []string{"r3"}) {
		t.Errorf("outbox after delivering r1 and r4 together = %q, want [r3]", got)
	}
}

// testFinishDelivered: Finish removes the replies the worker delivered in
// the same call, and the chat is idle once they are gone, even when the
// lease was lost meanwhile (they reached the user; the new holder must not
// send them again).
func testFinishDelivered(t *testing.T, h *harness) {
	k := chat("finish-delivered")
	mustAppend(t, h, text(k, "m1", "hi"))
	snap := mustBegin(t, h, k, "")
	out := []botgw.Outbound{{Chat: k, ID: "r1", Text: "one"}, {Chat: k, ID: "r2", Text: "two"}}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Consumed: 1, Outbox: out})
	more, err := h.s.Finish(t.Context(), k, snap.Lease, []string{"r1", "r2"})
	if err != nil || more {
		t.Fatalf("Finish after delivering every reply = %v, %v; want false, nil", more, err)
	}
	if left := mustBegin(t, h, k, "").Outbox; len(left) != 0 {
		t.Errorf("outbox after Finish = %q, want empty", outIDs(left))
	}

	k = chat("finish-delivered-lost")
	dead := committedTurn(t, h, k, out...)
	h.advance(suiteOpts.LeaseTTL + 100*time.Millisecond)
	live := mustBegin(t, h, k, "")
	if _, err := h.s.Finish(t.Context(), k, dead.Lease, []string{"r1"}); !errors.Is(err, botgw.ErrLeaseLost) {
		t.Fatalf("Finish with an expired lease = %v, want ErrLeaseLost", err)
	}
	if got := outIDs(mustBegin(t, h, k, live.Lease).Outbox); !slices.Equal(got, []string{"r2"}) {
		t.Errorf("outbox after a fenced Finish that delivered r1 = %q, want [r2]", got)
	}
	h.advance(suiteOpts.Visibility + 100*time.Millisecond)
	if due, _ := h.s.Due(t.Context(), 10); !slices.Contains(due, k) {
		t.Errorf("Due after a fenced Finish = %v, want the new holder's chat still marked", due)
	}
}

// testFinishPartlyDelivered: a Finish that delivered only the head of the
// outbox keeps the chat, and the reply it did not deliver is the next
// turn's to send, through Finish and through FinishNext alike.
func testFinishPartlyDelivered(t *testing.T, h *harness) {
	out := func(k botgw.ChatKey) []botgw.Outbound {
		return []botgw.Outbound{{Chat: k, ID: "r1", Text: "one"}, {Chat: k, ID: "r2", Text: "two"}}
	}
	k := chat("finish-partly")
	snap := committedTurn(t, h, k, out(k)...)
	more, err := h.s.Finish(t.Context(), k, snap.Lease, []string{"r1"})
	if err != nil || !more {
		t.Fatalf("Finish with r2 undelivered = %v, %v; want true, nil", more, err)
	}
	if got := outIDs(mustBegin(t, h, k, snap.Lease).Outbox); !slices.Equal(got, []string{"r2"}) {
		t.Errorf("outbox after Finish delivered r1 = %q, want [r2]", got)
	}

	k = chat("finish-next-partly")
	snap = committedTurn(t, h, k, out(k)...)
	next, more, err := h.s.FinishNext(t.Context(), k, snap.Lease, []string{"r1"}, time.Time{})
	if err != nil || !more {
		t.Fatalf("FinishNext with r2 undelivered = %v, %v; want true, nil", more, err)
	}
	if got := outIDs(next.Outbox); !slices.Equal(got, []string{"r2"}) {
		t.Errorf("next turn's outbox after FinishNext delivered r1 = %q, want [r2]", got)
	}
	next, more, err = h.s.FinishNext(t.Context(), k, snap.Lease, []string{"r2"}, time.Time{})
	if err != nil || more || len(next.Outbox) != 0 {
		t.Errorf("FinishNext after delivering r2 = %q, %v, %v; want no outbox, false, nil", outIDs(next.Outbox), more, err)
	}
}

// testFinishKeepsPace: the chat's own send pace that FinishNext keeps is in
// the next snapshot, whoever takes the chat next; a pace already past is
// not kept, and neither is one for a chat whose state was reset (it would
// leave a state without expiry).
func testFinishKeepsPace(t *testing.T, h *harness) {
	k := chat("pace")
	snap := committedTurn(t, h, k)
	paced := h.s.now().Add(time.Hour).Truncate(time.Millisecond)
	if _, more, err := h.s.FinishNext(t.Context(), k, snap.Lease, nil, paced); err != nil || more {
		t.Fatalf("FinishNext = %v, %v; want false, nil", more, err)
	}
	next := mustBegin(t, h, k, "")
	if !next.Paced.Equal(paced) {
		t.Errorf("pace after FinishNext kept it = %v, want %v", next.Paced, paced)
	}
	mustAppend(t, h, text(k, "m2", "meanwhile"))
	mustCommit(t, h, k, botgw.Commit{Lease: next.Lease, Version: next.Version, Blob: []byte("s"), TTL: time.Hour})
	if _, more, err := h.s.FinishNext(t.Context(), k, next.Lease, nil, h.s.now().Add(-time.Second)); err != nil || !more {
		t.Fatalf("FinishNext with input waiting = %v, %v; want true, nil", more, err)
	}
	if after := mustBegin(t, h, k, next.Lease); !after.Paced.Equal(paced) {
		t.Errorf("pace after a FinishNext with a past one = %v, want the kept %v", after.Paced, paced)
	}

	k = chat("pace-reset")
	mustAppend(t, h, text(k, "m1", "/reset"))
	snap = mustBegin(t, h, k, "")
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Consumed: 1})
	if _, _, err := h.s.FinishNext(t.Context(), k, snap.Lease, nil, paced); err != nil {
		t.Fatal(err)
	}
	ks, _ := h.s.keys(k)
	if n, err := h.s.c.Exists(t.Context(), ks.state).Result(); err != nil || n != 0 {
		t.Errorf("state key of a reset chat after FinishNext kept a pace: exists = %d, %v; want 0", n, err)
	}
}

func testFinishIdle(t *testing.T, h *harness) {
	k := chat("idle")
	snap := committedTurn(t, h, k)
	more, err := h.s.Finish(t.Context(), k, snap.Lease, nil)
	if err != nil || more {
		t.Fatalf("Finish on an idle chat = %v, %v; want false, nil", more, err)
	}
	if other := mustBegin(t, h, k, ""); other.Lease == snap.Lease {
		t.Error("Finish kept the lease of an idle chat")
	}
	h.advance(suiteOpts.Visibility + 100*time.Millisecond)
	if due, _ := h.s.Due(t.Context(), 10); len(due) != 0 {
		t.Errorf("Due after an idle Finish = %v, want none", due)
	}
}

func testFinishMore(t *testing.T, h *harness) {
	k := chat("more")
	snap := committedTurn(t, h, k)
	mustAppend(t, h, text(k, "m2", "before the finish"))
	more, err := h.s.Finish(t.Context(), k, snap.Lease, nil)
	if err != nil || !more {
		t.Fatalf("Finish with new input = %v, %v; want true, nil", more, err)
	}
	if _, err := h.s.Begin(t.Context(), k, ""); !errors.Is(err, botgw.ErrBusy) {
		t.Errorf("Begin by another after Finish(more) = %v, want ErrBusy", err)
	}
	h.advance(suiteOpts.LeaseTTL + 100*time.Millisecond) // the worker dies here
	due, err := h.s.Due(t.Context(), 10)
	if err != nil || !slices.Equal(due, []botgw.ChatKey{k}) {
		t.Errorf("Due after the worker died = %v, %v; want [%s]", due, err, k)
	}
}

// testFinishNextMoreRecovers: a worker that goes on with the next turn
// after FinishNext and dies is recovered like one that called Finish: its
// chat comes due once the lease expired.
func testFinishNextMoreRecovers(t *testing.T, h *harness) {
	k := chat("next-more")
	snap := committedTurn(t, h, k)
	mustAppend(t, h, text(k, "m2", "before the finish"))
	next, more, err := h.s.FinishNext(t.Context(), k, snap.Lease, nil, time.Time{})
	if err != nil || !more || len(next.Pending) != 1 {
		t.Fatalf("FinishNext with new input = %d pending, %v, %v; want 1, true, nil", len(next.Pending), more, err)
	}
	h.advance(suiteOpts.LeaseTTL + suiteOpts.Visibility + 100*time.Millisecond) // the worker dies here
	due, err := h.s.Due(t.Context(), 10)
	if err != nil || !slices.Equal(due, []botgw.ChatKey{k}) {
		t.Fatalf("Due after the worker died = %v, %v; want [%s]", due, err, k)
	}
	if taken := mustBegin(t, h, k, ""); len(taken.Pending) != 1 {
		t.Errorf("the chat's new worker sees %d pending entries, want 1", len(taken.Pending))
	}
}

func testDueReclaims(t *testing.T, h *harness) {
	k := chat("reclaim")
	mustAppend(t, h, text(k, "m1", "hi"))
	if due, _ := h.s.Due(t.Context(), 10); len(due) != 0 {
		t.Fatalf("Due right after Append = %v, want none (the ingress replica handles it)", due)
	}
	mustBegin(t, h, k, "") // this worker dies holding the lease
	h.advance(suiteOpts.Visibility + 100*time.Millisecond)
	due, err := h.s.Due(t.Context(), 10)
	if err != nil || !slices.Equal(due, []botgw.ChatKey{k}) {
		t.Fatalf("Due after the visibility timeout = %v, %v; want [%s]", due, err, k)
	}
	if again, _ := h.s.Due(t.Context(), 10); len(again) != 0 {
		t.Errorf("second Due = %v, want none (claimed chats are hidden)", again)
	}
	h.advance(suiteOpts.LeaseTTL)
	if snap := mustBegin(t, h, k, ""); len(snap.Pending) != 1 {
		t.Errorf("reclaimed chat has %d pending, want 1", len(snap.Pending))
	}
	h.advance(suiteOpts.Visibility + 100*time.Millisecond)
	if due, _ := h.s.Due(t.Context(), 10); len(due) != 1 {
		t.Errorf("Due after another timeout = %v, want the unfinished chat again", due)
	}
}

// testBusyChatDueWhenLeaseRunsOut: a claim that finds the chat's lease
// taken makes the chat due when that lease runs out, not a whole
// visibility timeout after the claim, so a dead holder's chat is taken as
// soon as its lease allows.
func testBusyChatDueWhenLeaseRunsOut(t *testing.T, h *harness) {
	k := chat("busy-due")
	mustAppend(t, h, text(k, "m1", "hi"))
	held := mustBegin(t, h, k, "")
	h.advance(suiteOpts.Visibility + 50*time.Millisecond)
	if err := h.s.Renew(t.Context(), k, held.Lease); err != nil { // the holder's last renewal; it dies
		t.Fatal(err)
	}
	h.advance(suiteOpts.LeaseTTL - 100*time.Millisecond)
	if due, err := h.s.Due(t.Context(), 10); err != nil || !slices.Equal(due, []botgw.ChatKey{k}) {
		t.Fatalf("Due = %v, %v; want [%s]", due, err, k)
	}
	if _, err := h.s.Begin(t.Context(), k, ""); !errors.Is(err, botgw.ErrBusy) {
		t.Fatalf("Begin while held = %v, want ErrBusy", err)
	}
	h.advance(200 * time.Millisecond) // past the lease, within the claim's visibility timeout
	if due, err := h.s.Due(t.Context(), 10); err != nil || !slices.Equal(due, []botgw.ChatKey{k}) {
		t.Fatalf("Due once the holder's lease ran out = %v, %v; want [%s]", due, err, k)
	}
	if snap := mustBegin(t, h, k, ""); len(snap.Pending) != 1 {
		t.Errorf("the chat's new worker sees %d pending entries, want 1", len(snap.Pending))
	}
}

func testDueLimit(t *testing.T, h *harness) {
	var all []botgw.ChatKey
	for _, id := range []string{"d1", "d2", "d3", "d4", "d5"} {
		all = append(all, chat(id))
		mustAppend(t, h, text(chat(id), "m1", "hi"))
	}
	h.advance(suiteOpts.Visibility + 100*time.Millisecond)
	first, err := h.s.Due(t.Context(), 2)
	if err != nil || len(first) != 2 {
		t.Fatalf("Due(2) = %v, %v; want 2 chats", first, err)
	}
	rest, err := h.s.Due(t.Context(), 10)
	if err != nil || len(rest) != 3 {
		t.Fatalf("Due(10) after Due(2) = %v, %v; want the other 3", rest, err)
	}
	got := append(first, rest...)
	slices.SortFunc(got, cmpChat)
	if !slices.Equal(got, all) {
		t.Errorf("Due handed out %v, want each of %v once", got, all)
	}
}

func cmpChat(a, b botgw.ChatKey) int { return strings.Compare(a.String(), b.String()) }

func testRelease(t *testing.T, h *harness) {
	k := chat("release")
	mustAppend(t, h, text(k, "m1", "hi"))
	snap := mustBegin(t, h, k, "")
	if err := h.s.Release(t.Context(), k, snap.Lease); err != nil {
		t.Fatalf("Release: %v", err)
	}
	due, err := h.s.Due(t.Context(), 10)
	if err != nil || !slices.Equal(due, []botgw.ChatKey{k}) {
		t.Errorf("Due right after Release = %v, %v; want [%s]", due, err, k)
	}
	if next := mustBegin(t, h, k, ""); len(next.Pending) != 1 {
		t.Errorf("next worker sees %d pending, want 1", len(next.Pending))
	}
}

func testBacklog(t *testing.T, h *harness) {
	for _, id := range []string{"b1", "b2"} {
		mustAppend(t, h, text(chat(id), "m1", "hi"))
	}
	if b, err := h.s.Backlog(t.Context()); err != nil || b.Due != 0 || b.Overdue != 0 {
		t.Fatalf("Backlog right after Append = %+v, %v; want nothing due (the ingress replica has it)", b, err)
	}
	h.advance(suiteOpts.Visibility + 200*time.Millisecond)
	b, err := h.s.Backlog(t.Context())
	if err != nil || b.Due != 2 || b.Overdue < 100*time.Millisecond {
		t.Fatalf("Backlog after the visibility timeout = %+v, %v; want 2 due, overdue by about 200ms", b, err)
	}
	if due, _ := h.s.Due(t.Context(), 10); len(due) != 2 {
		t.Fatalf("Due = %v, want both chats", due)
	}
	if b, err := h.s.Backlog(t.Context()); err != nil || b.Due != 0 {
		t.Errorf("Backlog once workers claimed the chats = %+v, %v; want nothing due", b, err)
	}
}

func testProgress(t *testing.T, h *harness) {
	k := chat("progress")
	snap := mustBegin(t, h, k, "")
	out := []botgw.Outbound{
		{Chat: k, ID: "r1", Text: "one"},
		{Chat: k, ID: "r2", Text: "a/b «two» \"quoted\"", Meta: map[string]string{"reply_to": "m1"}},
	}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Outbox: out})
	for _, id := range []string{"r2", "unknown"} {
		if err := h.s.Progress(t.Context(), k, id, 2); err != nil {
			t.Fatalf("Progress(%s): %v", id, err)
		}
	}
	got := mustBegin(t, h, k, snap.Lease).Outbox
	want := []botgw.Outbound{out[0], out[1]}
	want[1].Sent = 2
	if len(got) != 2 || got[0].Sent != 0 || got[1].Sent != 2 || got[1].Text != want[1].Text || got[1].Meta["reply_to"] != "m1" {
		t.Errorf("outbox after Progress(r2, 2) = %+v, want %+v", got, want)
	}
}

// testFinishNextLeftoversNeedTheLease: FinishNext hands replies left in the
// outbox (which the caller sends at once, before any commit) only to the
// lease's holder; input alone goes on without a check, the next commit
// being fenced.
func testFinishNextLeftoversNeedTheLease(t *testing.T, h *harness) {
	k := chat("next-leftovers")
	ks, _ := h.s.keys(k)
	mustAppend(t, h, text(k, "m1", "hi"))
	snap := mustBegin(t, h, k, "")
	out := []botgw.Outbound{{Chat: k, ID: "r1", Text: "one"}, {Chat: k, ID: "r2", Text: "two"}}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Consumed: 1, Outbox: out})
	mustAppend(t, h, text(k, "m2", "more"))
	if err := h.s.c.Set(t.Context(), ks.lease, "another worker", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	next, more, err := h.s.FinishNext(t.Context(), k, snap.Lease, []string{"r1"}, time.Time{})
	if !errors.Is(err, botgw.ErrLeaseLost) {
		t.Fatalf("FinishNext on a lost lease with r2 left = %d replies, %v, %v; want ErrLeaseLost", len(next.Outbox), more, err)
	}
	if h.s.cluster {
		return // Begin after Finish: the lease is always checked
	}
	next, more, err = h.s.FinishNext(t.Context(), k, snap.Lease, []string{"r2"}, time.Time{})
	if err != nil || !more || !next.Kept || len(next.Outbox) != 0 || len(next.Pending) != 1 {
		t.Errorf("FinishNext with input only = %+v, %v, %v; want Kept with m2 and no replies", next, more, err)
	}
}

// testFinishIdleKeepsAnothersLease: a worker whose lease expired and was
// taken finds the chat idle; its Finish and FinishNext report the loss and
// leave the new holder's lease in place.
func testFinishIdleKeepsAnothersLease(t *testing.T, h *harness) {
	k := chat("idle-lost")
	dead := committedTurn(t, h, k)
	h.advance(suiteOpts.LeaseTTL + 100*time.Millisecond)
	live := mustBegin(t, h, k, "")
	if _, err := h.s.Finish(t.Context(), k, dead.Lease, nil); !errors.Is(err, botgw.ErrLeaseLost) {
		t.Errorf("Finish of an idle chat by the worker that lost it = %v, want ErrLeaseLost", err)
	}
	if _, _, err := h.s.FinishNext(t.Context(), k, dead.Lease, nil, time.Time{}); !errors.Is(err, botgw.ErrLeaseLost) {
		t.Errorf("FinishNext of an idle chat by the worker that lost it = %v, want ErrLeaseLost", err)
	}
	if _, err := h.s.Begin(t.Context(), k, ""); !errors.Is(err, botgw.ErrBusy) {
		t.Errorf("Begin by a third worker = %v, want ErrBusy: the new holder's lease must stay", err)
	}
	if _, err := h.s.Begin(t.Context(), k, live.Lease); err != nil {
		t.Errorf("Begin by the new holder = %v, want its lease kept", err)
	}
}

// committedTurn runs one turn of chat k up to its commit: the input "hi"
// appended and taken, state "s" and the replies out committed. It returns
// the snapshot the turn began on; the lease is still held.
func committedTurn(t *testing.T, h *harness, k botgw.ChatKey, out ...botgw.Outbound) botgw.Snapshot {
	t.Helper()
	mustAppend(t, h, text(k, "m1", "hi"))
	snap := mustBegin(t, h, k, "")
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Consumed: 1, Outbox: out})
	return snap
}
