package state

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

func testTTLSlides(t *testing.T, h *harness) {
	k := chat("ttl")
	// On real Redis advance sleeps: each step leaves 0.8 s to spare for a
	// slow, loaded machine between a commit and the check after it.
	const ttl, step = 2 * time.Second, 1200 * time.Millisecond
	snap := mustBegin(t, h, k, "")
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("v1"), TTL: ttl})
	h.advance(step)
	again := mustBegin(t, h, k, "")
	if again.TTL <= 0 || again.TTL > ttl {
		t.Fatalf("TTL after %v = %v, want in (0, %v]", step, again.TTL, ttl)
	}
	mustCommit(t, h, k, botgw.Commit{Lease: again.Lease, Version: 1, Blob: []byte("v2"), TTL: ttl})
	h.advance(step) // past the first commit's expiry
	if info, err := h.s.Info(t.Context(), k); err != nil || string(info.Blob) != "v2" {
		t.Fatalf("Info %v after the first commit = %+v, %v; want v2 (the second commit slid the TTL)", 2*step, info, err)
	}
	h.advance(ttl)
	if _, err := h.s.Info(t.Context(), k); !errors.Is(err, botgw.ErrNotFound) {
		t.Errorf("Info after the TTL without a commit = %v, want ErrNotFound", err)
	}
}

func testReset(t *testing.T, h *harness) {
	k := chat("reset")
	snap := mustBegin(t, h, k, "")
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour})
	inFlight := mustBegin(t, h, k, snap.Lease)
	if err := h.s.Reset(t.Context(), k); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if _, err := h.s.Info(t.Context(), k); !errors.Is(err, botgw.ErrNotFound) {
		t.Errorf("Info after Reset = %v, want ErrNotFound", err)
	}
	c := botgw.Commit{Lease: inFlight.Lease, Version: inFlight.Version, Blob: []byte("old"), TTL: time.Hour}
	if err := h.s.Commit(t.Context(), k, c); !errors.Is(err, botgw.ErrConflict) {
		t.Errorf("Commit of a turn begun before Reset = %v, want ErrConflict", err)
	}
}

func testInfo(t *testing.T, h *harness) {
	k := chat("info")
	if _, err := h.s.Info(t.Context(), k); !errors.Is(err, botgw.ErrNotFound) {
		t.Fatalf("Info of an unknown chat = %v, want ErrNotFound", err)
	}
	mustAppend(t, h, text(k, "m1", "hi"))
	mustAppend(t, h, text(k, "m2", "there"))
	if info, err := h.s.Info(t.Context(), k); err != nil || info.Pending != 2 || info.Blob != nil {
		t.Fatalf("Info with input only = %+v, %v; want 2 pending, no state", info, err)
	}
	snap := mustBegin(t, h, k, "")
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("state"), TTL: time.Hour, Consumed: 2,
		Outbox: []botgw.Outbound{{Chat: k, ID: "r1", Text: "hello"}}})
	info, err := h.s.Info(t.Context(), k)
	if err != nil {
		t.Fatalf("Info: %v", err)
	}
	want := botgw.ChatInfo{Chat: k, Blob: []byte("state"), Version: 1, Pending: 0, Outbox: 1}
	if info.Chat != want.Chat || string(info.Blob) != "state" || info.Version != 1 || info.Pending != 0 || info.Outbox != 1 {
		t.Errorf("Info = %+v, want %+v", info, want)
	}
	if info.TTL <= 59*time.Minute || info.TTL > time.Hour {
		t.Errorf("Info TTL = %v, want about 1h", info.TTL)
	}
}

func testListPages(t *testing.T, h *harness) {
	var want []botgw.ChatKey
	for i := range 7 {
		k := chat(fmt.Sprintf("list-%d/thread", i))
		want = append(want, k)
		snap := mustBegin(t, h, k, "")
		mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour})
	}
	mustAppend(t, h, text(chat("input-only"), "m1", "not listed: no state"))
	var got []botgw.ChatKey
	cursor, pages := "", 0
	for {
		page, next, err := h.s.List(t.Context(), cursor, 2)
		if err != nil {
			t.Fatalf("List(%q): %v", cursor, err)
		}
		got, cursor, pages = append(got, page...), next, pages+1
		if cursor == "" || pages > 1_000_000 { // a shared Redis may hold many other keys
			break
		}
	}
	slices.SortFunc(got, cmpChat)
	got = slices.Compact(got) // SCAN may repeat a key
	if !slices.Equal(got, want) {
		t.Errorf("List pages = %v, want %v", got, want)
	}
}

func testOnce(t *testing.T, h *harness) {
	ok, err := h.s.Once(t.Context(), "sig-1", time.Second)
	if err != nil || !ok {
		t.Fatalf("first Once = %v, %v; want true", ok, err)
	}
	if ok, _ := h.s.Once(t.Context(), "sig-1", time.Second); ok {
		t.Error("second Once within ttl = true, want false")
	}
	h.advance(time.Second + 100*time.Millisecond)
	if ok, _ := h.s.Once(t.Context(), "sig-1", time.Second); !ok {
		t.Error("Once after ttl = false, want true")
	}
}

func testCorruptEntriesDropped(t *testing.T, h *harness) {
	k := chat("corrupt")
	ks, _ := h.s.keys(k)
	mustAppend(t, h, text(k, "m1", "before"))
	h.s.c.RPush(t.Context(), ks.pending, "{not json")
	mustAppend(t, h, text(k, "m2", "after"))
	h.s.c.RPush(t.Context(), ks.outbox, `{"id": 42`)
	snap := mustBegin(t, h, k, "")
	if got := texts(snap.Pending); !slices.Equal(got, []string{"before", "after"}) || len(snap.Outbox) != 0 {
		t.Fatalf("snapshot = pending %q, outbox %v; want the readable input only", got, snap.Outbox)
	}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Consumed: len(snap.Pending)})
	more, err := h.s.Finish(t.Context(), k, snap.Lease, nil)
	if err != nil || more {
		t.Errorf("Finish = %v, %v; want the chat idle, not wedged on corrupt entries", more, err)
	}
}

func testBadChatKey(t *testing.T, h *harness) {
	bad := botgw.ChatKey{Channel: "test", ID: "a}b"}
	if err := h.s.Append(t.Context(), text(bad, "m1", "x")); err == nil {
		t.Error("Append to a chat id with a brace succeeded, want an error")
	}
	if _, err := h.s.Begin(t.Context(), botgw.ChatKey{}, ""); err == nil {
		t.Error("Begin on the zero chat key succeeded, want an error")
	}
}

// testScriptCacheFlushed: after a Redis restart or fail-over the script
// cache is empty; pipelined EVALSHA must reload rather than fail.
func testScriptCacheFlushed(t *testing.T, h *harness) {
	k := chat("noscript")
	mustAppend(t, h, text(k, "m1", "hi"))
	if err := h.s.c.ScriptFlush(t.Context()).Err(); err != nil {
		t.Fatalf("SCRIPT FLUSH: %v", err)
	}
	mustAppend(t, h, text(k, "m2", "after flush"))
	snap := mustBegin(t, h, k, "")
	if err := h.s.c.ScriptFlush(t.Context()).Err(); err != nil {
		t.Fatalf("SCRIPT FLUSH: %v", err)
	}
	mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Hour, Consumed: 2})
	h.s.c.ScriptFlush(t.Context())
	if more, err := h.s.Finish(t.Context(), k, snap.Lease, nil); err != nil || more {
		t.Errorf("Finish after SCRIPT FLUSH = %v, %v; want false, nil", more, err)
	}
}
