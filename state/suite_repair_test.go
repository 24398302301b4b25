package state

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

// testAppendAllOrNothing: when the work mark cannot be written, Append's
// answer still says exactly whether the input is stored. On a single node
// input and mark are one step: an error means nothing was stored and the
// platform's retry (same id) is stored once. On a cluster the input is
// stored and Append says so; Repair gives the chat its mark back.
func testAppendAllOrNothing(t *testing.T, h *harness) {
	ctx := t.Context()
	k := chat("atomic")
	ks, err := h.s.keys(k)
	if err != nil {
		t.Fatal(err)
	}
	// The chat's work shard cannot take a mark (WRONGTYPE), as a full
	// Redis or a dropped connection would refuse it.
	if err := h.s.c.Set(ctx, ks.work, "not a zset", 0).Err(); err != nil {
		t.Fatal(err)
	}
	err = h.s.Append(ctx, text(k, "m1", "hello"))
	stored := h.s.c.LLen(ctx, ks.pending).Val()
	if (err == nil) != (stored == 1) || stored > 1 {
		t.Fatalf("Append = %v with %d entries pending: nil must mean stored, an error not stored", err, stored)
	}
	if err != nil && h.s.cluster {
		t.Errorf("Append on a cluster = %v: the input is stored, the mark is the repair scan's job", err)
	}
	if err := h.s.c.Del(ctx, ks.work).Err(); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Append(ctx, text(k, "m1", "hello")); err != nil && !errors.Is(err, botgw.ErrDuplicate) {
		t.Fatalf("retry of m1: %v", err)
	}
	if n := h.s.c.LLen(ctx, ks.pending).Val(); n != 1 {
		t.Errorf("after the retry %d entries pending, want 1", n)
	}
	if _, err := h.s.Repair(ctx); err != nil {
		t.Fatalf("Repair: %v", err)
	}
	h.advance(suiteOpts.Visibility + 50*time.Millisecond)
	if due := dueIDs(t, h); !slices.Contains(due, k.ID) {
		t.Errorf("due chats %q lack the chat whose input is pending", due)
	}
}

// testRepairMarksOrphans: a chat with input or a reply but no work mark
// (its replica died between the steps of a cluster Append) becomes due
// again after Repair; chats without lists get no mark.
func testRepairMarksOrphans(t *testing.T, h *harness) {
	ctx := t.Context()
	input, reply, idle := chat("orphan-input"), chat("orphan-reply"), chat("idle")
	mustAppend(t, h, text(input, "m1", "hello"))
	mustAppend(t, h, text(reply, "m1", "hello"))
	snap := mustBegin(t, h, reply, "")
	mustCommit(t, h, reply, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Consumed: 1,
		Outbox: []botgw.Outbound{{Chat: reply, ID: "r1", Text: "hi"}}})
	mustAppend(t, h, text(idle, "m1", "hello"))
	snap = mustBegin(t, h, idle, "")
	mustCommit(t, h, idle, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Consumed: 1})
	for _, k := range []botgw.ChatKey{input, reply, idle} {
		ks, _ := h.s.keys(k)
		if err := h.s.c.ZRem(ctx, ks.work, ks.member).Err(); err != nil {
			t.Fatal(err)
		}
	}
	h.advance(suiteOpts.Visibility + 50*time.Millisecond)
	if due := dueIDs(t, h); len(due) != 0 {
		t.Fatalf("due before Repair = %q, want none (marks removed)", due)
	}
	if _, err := h.s.Repair(ctx); err != nil {
		t.Fatalf("Repair: %v", err)
	}
	due := dueIDs(t, h)
	slices.Sort(due)
	if want := []string{input.ID, reply.ID}; !slices.Equal(due, want) {
		t.Errorf("due after Repair = %q, want %q", due, want)
	}
}

func testWritable(t *testing.T, h *harness) {
	if err := h.s.Writable(t.Context()); err != nil {
		t.Errorf("Writable on a healthy store: %v", err)
	}
}

func dueIDs(t *testing.T, h *harness) []string {
	t.Helper()
	keys, err := h.s.Due(t.Context(), 100)
	if err != nil {
		t.Fatalf("Due: %v", err)
	}
	var ids []string
	for _, k := range keys {
		ids = append(ids, k.ID)
	}
	return ids
}
