package state

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

// testChatIndex: the chat list kept by the commits, newest first, filtered
// by channel and prefix, paged by cursor, with preview and pause; a chat
// whose state was reset drops out.
func testChatIndex(t *testing.T, h *harness) {
	base := time.UnixMilli(1_800_000_000_000)
	paused := base.Add(time.Hour)
	commit := func(k botgw.ChatKey, at time.Duration, preview string, until time.Time) {
		t.Helper()
		snap := mustBegin(t, h, k, "")
		mustCommit(t, h, k, botgw.Commit{Lease: snap.Lease, Version: snap.Version, Blob: []byte("s"), TTL: time.Hour,
			Activity: &botgw.ChatActivity{At: base.Add(at), Preview: preview, PausedUntil: until}})
		if err := h.s.Release(t.Context(), k, snap.Lease); err != nil {
			t.Fatal(err)
		}
	}
	tg := func(id string) botgw.ChatKey { return botgw.ChatKey{Channel: "telegram", ID: id} }
	commit(tg("1"), 1*time.Second, "player: hi", time.Time{})
	commit(tg("-1002"), 2*time.Second, "player: in a group", time.Time{})
	commit(chat("web-a"), 2500*time.Millisecond, "player: on the web", paused)
	commit(tg("-1003"), 4*time.Second, "player: other group", time.Time{})
	commit(tg("1"), 5*time.Second, "assistant: +50 points", time.Time{}) // moves to the front
	// On a single node, within a second of its last move a chat keeps its
	// place (it saves a write a turn), but the list shows its latest
	// activity.
	commit(tg("-1002"), 2900*time.Millisecond, "player: again in a group", time.Time{})
	order := []string{"telegram:1", "telegram:-1003", "test:web-a", "telegram:-1002"}
	if h.s.cluster { // the chat list is updated beside the script, at once
		order = []string{"telegram:1", "telegram:-1003", "telegram:-1002", "test:web-a"}
	}

	list := func(q botgw.ChatQuery) (keys []string, previews []string, next string) {
		t.Helper()
		items, next, err := h.s.Chats(t.Context(), q)
		if err != nil {
			t.Fatalf("Chats(%+v): %v", q, err)
		}
		for _, it := range items {
			keys, previews = append(keys, it.Chat.String()), append(previews, it.Preview)
			if it.Chat.ID == "web-a" && !it.PausedUntil.Equal(paused) {
				t.Errorf("%s paused until %v, want %v", it.Chat, it.PausedUntil, paused)
			}
		}
		return keys, previews, next
	}
	keys, previews, _ := list(botgw.ChatQuery{Limit: 10})
	if !slices.Equal(keys, order) {
		t.Errorf("chat list = %q, want %q (newest first)", keys, order)
	}
	latest := map[string]string{"telegram:1": "assistant: +50 points", "telegram:-1003": "player: other group",
		"test:web-a": "player: on the web", "telegram:-1002": "player: again in a group"}
	for i, k := range keys {
		if previews[i] != latest[k] {
			t.Errorf("preview of %s = %q, want %q (its latest commit)", k, previews[i], latest[k])
		}
	}
	if keys, _, _ := list(botgw.ChatQuery{Prefix: "telegram:-100", Limit: 10}); !slices.Equal(keys, []string{"telegram:-1003", "telegram:-1002"}) {
		t.Errorf("prefix telegram:-100 = %q", keys)
	}
	if keys, _, _ := list(botgw.ChatQuery{Channel: "test", Limit: 10}); !slices.Equal(keys, []string{"test:web-a"}) {
		t.Errorf("channel test = %q", keys)
	}
	var paged []string
	cursor := ""
	for range 10 {
		keys, _, next := list(botgw.ChatQuery{Limit: 1, Cursor: cursor})
		paged = append(paged, keys...)
		if cursor = next; cursor == "" {
			break
		}
	}
	if !slices.Equal(paged, order) {
		t.Errorf("pages of 1 = %q, want %q", paged, order)
	}
	if err := h.s.Reset(t.Context(), tg("-1003")); err != nil {
		t.Fatal(err)
	}
	if keys, _, _ := list(botgw.ChatQuery{Limit: 10}); slices.Contains(keys, "telegram:-1003") {
		t.Errorf("chat list after a reset = %q, still lists it", keys)
	}
	if _, _, err := h.s.Chats(t.Context(), botgw.ChatQuery{Limit: 1, Cursor: "x"}); !errors.Is(err, botgw.ErrBadCursor) {
		t.Errorf("bad cursor: %v, want ErrBadCursor", err)
	}
}

// testBroadcasts: a broadcast is stored once per id, its chats read in
// order, its items' outcomes counted, and cancelling ends it.
func testBroadcasts(t *testing.T, h *harness) {
	b := h.s.Broadcasts()
	chats := make([]string, 2500) // more than one RPUSH chunk
	for i := range chats {
		chats[i] = fmt.Sprintf("telegram:%d", 1000+i)
	}
	bc := botgw.Broadcast{ID: "final-round", Event: botgw.Event{Text: "The final round starts in 10 minutes", Key: "round"}, Chats: chats}
	created, total, err := b.Create(t.Context(), bc)
	if err != nil || !created || total != len(chats) {
		t.Fatalf("Create = %v, %d, %v; want created, %d", created, total, err, len(chats))
	}
	if created, total, err := b.Create(t.Context(), botgw.Broadcast{ID: "final-round", Message: "again", Chats: chats[:1]}); err != nil || created || total != len(chats) {
		t.Errorf("second Create of the id = %v, %d, %v; want the first's total, not created", created, total, err)
	}
	if got, err := b.Chats(t.Context(), "final-round", 999, 3); err != nil || !slices.Equal(got, chats[999:1002]) {
		t.Errorf("Chats(999, 3) = %q, %v; want %q", got, err, chats[999:1002])
	}
	if ids, err := b.Running(t.Context()); err != nil || !slices.Equal(ids, []string{"final-round"}) {
		t.Errorf("Running = %q, %v", ids, err)
	}
	for i, outcome := range []string{"done", "done", "failed", "done"} {
		if err := b.Mark(t.Context(), "final-round", i, outcome); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Mark(t.Context(), "final-round", 0, "done"); err != nil { // twice: counted once
		t.Fatal(err)
	}
	if err := b.Cancel(t.Context(), "final-round"); err != nil {
		t.Fatal(err)
	}
	info, err := b.Get(t.Context(), "final-round")
	if err != nil {
		t.Fatal(err)
	}
	if info.State != botgw.BroadcastCancelled || info.Total != len(chats) || info.Done != 3 || info.Failed != 1 || info.Event.Key != "round" || info.FinishedAt.IsZero() {
		t.Errorf("after cancel: %+v", info)
	}
	if ids, err := b.Running(t.Context()); err != nil || len(ids) != 0 {
		t.Errorf("Running after cancel = %q, %v; want none", ids, err)
	}
	if _, err := b.Get(t.Context(), "no-such"); !errors.Is(err, botgw.ErrNotFound) {
		t.Errorf("Get of an unknown id: %v, want ErrNotFound", err)
	}
}
