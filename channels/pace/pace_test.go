package pace

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// fakeClock moves the embedded Redis' clock (TIME, TTLs) instead of
// sleeping, and records each sleep.
type fakeClock struct {
	mu    sync.Mutex
	m     *miniredis.Miniredis
	now   time.Time
	slept []time.Duration
}

func newFakeClock(m *miniredis.Miniredis) *fakeClock {
	c := &fakeClock{m: m, now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	m.SetTime(c.now)
	return c
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.slept = append(c.slept, d)
		c.now = c.now.Add(d)
		c.m.SetTime(c.now)
		c.m.FastForward(d)
	}
	return ctx.Err()
}

func (c *fakeClock) elapsed(since time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now.Sub(since)
}

func miniPacer(t *testing.T) (*Pacer, *fakeClock) {
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	t.Cleanup(func() { rdb.Close() })
	c := newFakeClock(m)
	return New(rdb, "test", nil).WithClock(c), c
}

// The GCRA runs on the embedded Redis: a burst goes at once, then one send
// per interval.
func TestWaitPacesAfterTheBurst(t *testing.T) {
	p, c := miniPacer(t)
	start := c.now
	r := Rule{Key: "chat:1", Limit: PerSecond(1, 3)}
	for range 5 {
		if err := p.Wait(t.Context(), nil, r); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.elapsed(start); got < 2*time.Second || got > 2100*time.Millisecond {
		t.Errorf("5 sends at 1/s with a burst of 3 took %v of fake time, want 2s", got)
	}
	other := c.elapsed(start)
	if err := p.Wait(t.Context(), nil, Rule{Key: "chat:2", Limit: PerSecond(1, 3)}); err != nil {
		t.Fatal(err)
	}
	if c.elapsed(start) != other {
		t.Error("another chat waited for the first chat's limit")
	}
}

// A hold stops sends of its scope until it ends; other scopes go on.
func TestHoldStopsTheScope(t *testing.T) {
	p, c := miniPacer(t)
	start := c.now
	if err := p.Hold(t.Context(), "bot", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := p.Hold(t.Context(), "bot", time.Second); err != nil { // shorter: the longer hold stays
		t.Fatal(err)
	}
	rule := Rule{Key: "bot", Limit: PerSecond(30, 1)}
	if err := p.Wait(t.Context(), []string{"other"}, rule); err != nil {
		t.Fatal(err)
	}
	if c.elapsed(start) != 0 {
		t.Error("a send of another scope waited for the hold")
	}
	if err := p.Wait(t.Context(), []string{"bot"}, rule); err != nil {
		t.Fatal(err)
	}
	if got := c.elapsed(start); got < 5*time.Second {
		t.Errorf("send went %v after a 5s hold", got)
	}
}

func TestParseRange(t *testing.T) {
	r, err := ParseRange("1s..8s")
	if err != nil || r != (Range{time.Second, 8 * time.Second}) {
		t.Fatalf("ParseRange = %v, %v", r, err)
	}
	for text, want := range map[string]time.Duration{"hi": time.Second, string(make([]byte, 100)): 5 * time.Second, string(make([]byte, 1000)): 8 * time.Second} {
		if got := r.For(text); got != want {
			t.Errorf("pause for %d chars = %v, want %v", len(text), got, want)
		}
	}
	for _, bad := range []string{"1s", "8s..1s", "x..2s", "-1s..2s"} {
		if _, err := ParseRange(bad); err == nil {
			t.Errorf("ParseRange(%q) accepted", bad)
		}
	}
}

// Two pacers on one real Redis (two replicas) share a limit: 21 sends at
// 20/s with no burst take at least a second, however they are split.
func TestLimitIsSharedByReplicas(t *testing.T) {
	u := os.Getenv("BOTGW_TEST_REDIS_URL")
	if u == "" {
		t.Skip("BOTGW_TEST_REDIS_URL not set: skipping real-Redis test")
	}
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "pacetest" + time.Now().Format("150405.000000")
	var pacers []*Pacer
	for range 2 {
		rdb := redis.NewClient(opt)
		t.Cleanup(func() { rdb.Close() })
		pacers = append(pacers, New(rdb, prefix, nil))
	}
	rule := Rule{Key: "bot", Limit: PerSecond(20, 1)}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 21 {
		wg.Go(func() {
			if err := pacers[i%2].Wait(t.Context(), nil, rule); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := time.Since(start); got < time.Second {
		t.Errorf("21 sends at 20/s over two replicas took %v, want ≥ 1s", got)
	}
}
