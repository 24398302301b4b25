package operator

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/codec"
	"github.com/botgw/botgw/state"
)

// storedChat commits a one-message conversation for k, with its place in
// the chat list, as a turn would.
func storedChat(t *testing.T, st *state.Store, k botgw.ChatKey) {
	t.Helper()
	ctx := context.Background()
	env := codec.New(time.Now())
	env.History = []botgw.Message{{Role: botgw.RoleUser, Text: "hello"}}
	blob, err := codec.Encode(env)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := st.Begin(ctx, k, "")
	if err != nil {
		t.Fatal(err)
	}
	err = st.Commit(ctx, k, botgw.Commit{Lease: snap.Lease, Blob: blob, TTL: time.Hour,
		Activity: &botgw.ChatActivity{At: time.Now(), Preview: "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Release(ctx, k, snap.Lease); err != nil {
		t.Fatal(err)
	}
}

// TestOperatorReadsItsOwnWrites: with no engine to apply them, an
// operator's pause, message and resume show in the chat's view and in the
// chat list as soon as each request returned.
func TestOperatorReadsItsOwnWrites(t *testing.T) {
	ctx := context.Background()
	st, err := state.Open(ctx, state.Config{}, state.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	k := botgw.ChatKey{Channel: "telegram", ID: "42"}
	storedChat(t, st, k)
	op := &API{Store: st}
	show := func() *ChatView {
		v, err := op.Show(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		return v.(*ChatView)
	}
	listed := func() time.Time {
		sums, _, err := op.Chats(ctx, botgw.ChatQuery{Limit: 10})
		if err != nil || len(sums) != 1 {
			t.Fatalf("chat list = %v, %v; want the one chat", sums, err)
		}
		return sums[0].PausedUntil
	}
	until, err := op.Pause(ctx, k, 10*time.Minute, "Sam")
	if err != nil {
		t.Fatal(err)
	}
	want := until.UTC().Format(time.RFC3339)
	if v := show(); v.PausedUntil != want || v.PausedBy != "Sam" {
		t.Errorf("view right after the pause: paused_until %q by %q, want %q by Sam", v.PausedUntil, v.PausedBy, want)
	}
	if got := listed(); !got.Equal(until) {
		t.Errorf("chat list right after the pause: paused until %v, want %v", got, until)
	}
	if err := op.Say(ctx, k, "Sam here.", botgw.Offer{}, "Sam", "admin-api"); err != nil {
		t.Fatal(err)
	}
	if h := show().History; len(h) != 2 || h[1].Text != "Sam here." || h[1].Operator != "Sam" {
		t.Errorf("history right after the operator's message = %+v, want hello then Sam's words", h)
	}
	if err := op.Resume(ctx, k, "admin-api"); err != nil {
		t.Fatal(err)
	}
	if v := show(); v.PausedUntil != "" {
		t.Errorf("view right after the resume: paused_until %q, want none", v.PausedUntil)
	}
	if got := listed(); !got.IsZero() {
		t.Errorf("chat list right after the resume: paused until %v, want not paused", got)
	}
}
