package state

import (
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/redistest"
)

func TestDeadLettersMiniredis(t *testing.T) { runDeadLetters(t, miniHarness) }

func TestDeadLettersRedis(t *testing.T) {
	redistest.URL(t)
	runDeadLetters(t, realHarness)
}

func TestDeadLettersRedisCluster(t *testing.T) {
	redistest.ClusterURL(t)
	runDeadLetters(t, clusterHarness)
}

func runDeadLetters(t *testing.T, newH newHarness) {
	for name, run := range map[string]func(*testing.T, *harness){
		"CorruptEntriesKept": testCorruptEntriesKept,
		"PagedNewestFirst":   testDeadLettersPaged,
		"Retention":          testDeadLetterRetention,
		"DeliveryAttempts":   testDeliveryAttempts,
	} {
		// A short retention: the real-Redis harness waits in real time.
		t.Run(name, func(t *testing.T) { run(t, newH(t, Options{DeadLetterTTL: 500 * time.Millisecond})) })
	}
}

// testCorruptEntriesKept: an entry nobody can decode leaves the chat's
// lists (so it does not wedge them) and becomes a dead letter.
func testCorruptEntriesKept(t *testing.T, h *harness) {
	k := chat("corrupt-dl")
	ks, _ := h.s.keys(k)
	mustAppend(t, h, text(k, "m1", "fine"))
	h.s.c.RPush(t.Context(), ks.pending, "{not json")
	h.s.c.RPush(t.Context(), ks.outbox, `{"id": 42`)
	mustBegin(t, h, k, "")
	items, _, err := h.s.ListDeadLetters(t.Context(), "", 10)
	if err != nil || len(items) != 2 {
		t.Fatalf("dead letters = %+v, %v; want the two corrupt entries", items, err)
	}
	kinds := map[string]string{}
	for _, d := range items {
		kinds[d.Kind] = d.Text
	}
	if kinds["input"] != "{not json" || kinds["reply"] != `{"id": 42` {
		t.Errorf("dead letters by kind = %v", kinds)
	}
}

func testDeadLettersPaged(t *testing.T, h *harness) {
	var ids []string
	for i := range 5 {
		id, err := h.s.AddDeadLetter(t.Context(), botgw.DeadLetter{Chat: "test:p", Kind: "reply", Text: string(rune('a' + i))})
		if err != nil {
			t.Fatal(err)
		}
		ids = append([]string{id}, ids...)
		h.advance(time.Millisecond)
	}
	var seen []string
	for cursor, pages := "", 0; pages == 0 || cursor != ""; pages++ {
		items, next, err := h.s.ListDeadLetters(t.Context(), cursor, 2)
		if err != nil || pages > 5 {
			t.Fatalf("page %d: %v", pages, err)
		}
		for _, d := range items {
			seen = append(seen, d.ID)
		}
		cursor = next
	}
	if len(seen) != 5 || seen[0] != ids[0] || seen[4] != ids[4] {
		t.Errorf("paged ids %v, want newest first %v", seen, ids)
	}
	if _, _, err := h.s.ListDeadLetters(t.Context(), "garbage", 2); err == nil {
		t.Error("a garbage cursor was accepted")
	}
}

func testDeadLetterRetention(t *testing.T, h *harness) {
	if _, err := h.s.AddDeadLetter(t.Context(), botgw.DeadLetter{Chat: "telegram:1", Kind: "reply", Text: "old"}); err != nil {
		t.Fatal(err)
	}
	h.advance(600 * time.Millisecond)
	items, _, err := h.s.ListDeadLetters(t.Context(), "", 10)
	if err != nil || len(items) != 0 {
		t.Errorf("after the retention: %+v, %v; want none", items, err)
	}
	if counts, _ := h.s.DeadLetterCounts(t.Context()); len(counts) != 0 {
		t.Errorf("counts after the retention: %v", counts)
	}
}

func testDeliveryAttempts(t *testing.T, h *harness) {
	k := chat("attempts")
	for want := 1; want <= 3; want++ {
		if n, err := h.s.DeliveryFailed(t.Context(), k, "re-1"); err != nil || n != want {
			t.Fatalf("round %d: %d, %v", want, n, err)
		}
	}
	if err := h.s.DeliveryDone(t.Context(), k, "re-1"); err != nil {
		t.Fatal(err)
	}
	if n, _ := h.s.DeliveryFailed(t.Context(), k, "re-1"); n != 1 {
		t.Errorf("after DeliveryDone the count restarts at %d, want 1", n)
	}
}
