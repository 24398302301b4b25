package state

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/redistest"
	"github.com/redis/go-redis/v9"
)

// harness is one store under test plus a way to let time pass for both the
// store's clock and Redis' TTLs.
type harness struct {
	s       *Store
	advance func(d time.Duration)
}

type newHarness func(t testing.TB, opts Options) *harness

// miniHarness runs on a private miniredis with a fake clock: advance is
// instant and exact.
func miniHarness(t testing.TB, opts Options) *harness {
	m := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: m.Addr(), DisableIdentity: true})
	s := New(c, "", opts)
	s.log = testLogger(t)
	clock := &fakeClock{t: time.Now()}
	s.now = clock.Now
	t.Cleanup(func() { s.Close() })
	return &harness{s: s, advance: func(d time.Duration) {
		clock.Add(d)
		m.FastForward(d)
	}}
}

// realHarness runs on BOTGW_TEST_REDIS_URL under a random key prefix, and
// deletes its keys afterwards. advance sleeps.
func realHarness(t testing.TB, opts Options) *harness {
	o, err := redis.ParseURL(redistest.URL(t))
	if err != nil {
		t.Fatalf("BOTGW_TEST_REDIS_URL: %v", err)
	}
	prefix := "botgwtest-" + newToken()[:12]
	s := New(redis.NewClient(o), prefix, opts)
	s.log = testLogger(t)
	t.Cleanup(func() {
		deleteKeys(t, s.c, prefix+":*")
		s.Close()
	})
	return &harness{s: s, advance: time.Sleep}
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}

func deleteKeys(t testing.TB, c redis.UniversalClient, pattern string) {
	ctx := context.Background()
	iter := c.Scan(ctx, 0, pattern, 100).Iterator()
	for iter.Next(ctx) {
		c.Del(ctx, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Errorf("clean up %s: %v", pattern, err)
	}
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func chat(id string) botgw.ChatKey { return botgw.ChatKey{Channel: "test", ID: id} }

func text(k botgw.ChatKey, id, s string) botgw.Inbound {
	return botgw.Inbound{Chat: k, Kind: botgw.KindText, ID: id, Text: s}
}

func mustAppend(t *testing.T, h *harness, in botgw.Inbound) {
	t.Helper()
	if err := h.s.Append(t.Context(), in); err != nil {
		t.Fatalf("Append(%s): %v", in.ID, err)
	}
}

func mustBegin(t *testing.T, h *harness, k botgw.ChatKey, lease string) botgw.Snapshot {
	t.Helper()
	snap, err := h.s.Begin(t.Context(), k, lease)
	if err != nil {
		t.Fatalf("Begin(%s, %q): %v", k, lease, err)
	}
	return snap
}

func mustCommit(t *testing.T, h *harness, k botgw.ChatKey, c botgw.Commit) {
	t.Helper()
	if err := h.s.Commit(t.Context(), k, c); err != nil {
		t.Fatalf("Commit(%s): %v", k, err)
	}
}

func texts(in []botgw.Inbound) []string {
	var out []string
	for _, m := range in {
		out = append(out, m.Text)
	}
	return out
}

func outIDs(out []botgw.Outbound) []string {
	var ids []string
	for _, m := range out {
		ids = append(ids, m.ID)
	}
	return ids
}
