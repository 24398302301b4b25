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
func committedTurn(t *testing.T, h *harness, k botgw.ChatKey, out ...botgw.Outbound) botgw.Snapshot {
	t.Helper()
	mustAppend(t, h, text(k, "m1", "hi"))
	snap := mustBegin(t, h, k, "")
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Consumed: 1, Outbox: out})
	return snap
}
