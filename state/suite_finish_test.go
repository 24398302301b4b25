package state

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

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
