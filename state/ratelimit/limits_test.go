package ratelimit_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/state/ratelimit"
	"github.com/botgw/botgw/state/ratelimit/ratelimittest"
)

// A pass may cost more than one (a model call's tokens): 800 of a minute's
// 1000 go at once, the next 800 wait until the budget has refilled enough,
// and a cost over the burst is charged as the burst instead of never
// passing.
func TestCostTakesThatMuchOfTheLimit(t *testing.T) {
	l, c := ratelimittest.New(t)
	rule := ratelimit.Rule{Key: "tpm", Limit: ratelimit.PerMinute(1000, 1000), Cost: 800}
	start := c.Now()
	if err := l.Wait(t.Context(), nil, rule); err != nil {
		t.Fatal(err)
	}
	if c.Now() != start {
		t.Fatal("the first 800 of a burst of 1000 waited")
	}
	if err := l.Wait(t.Context(), nil, rule); err != nil {
		t.Fatal(err)
	}
	// 600 more tokens at one every 60 ms: 36 s.
	if got := c.Now().Sub(start); got < 35*time.Second || got > 37*time.Second {
		t.Errorf("the second 800 tokens went after %v of fake time, want 36s", got)
	}
	huge := ratelimit.Rule{Key: "other", Limit: ratelimit.PerMinute(1000, 1000), Cost: 5000}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := l.Wait(ctx, nil, huge); err != nil {
		t.Fatalf("a cost over the burst: %v, want it charged as the burst and passed", err)
	}
}

// Allow refuses instead of waiting, says for how long, and takes nothing
// when it refuses (the web chat's per-client limit).
func TestAllowRefusesWithTheWait(t *testing.T) {
	l, c := ratelimittest.New(t)
	rule := ratelimit.Rule{Key: "client", Limit: ratelimit.PerMinute(2, 2)}
	for i := range 2 {
		if d, err := l.Allow(t.Context(), rule); err != nil || d != 0 {
			t.Fatalf("message %d of a burst of 2: wait %v, %v", i+1, d, err)
		}
	}
	d, err := l.Allow(t.Context(), rule)
	if err != nil || d < 29*time.Second || d > 30*time.Second {
		t.Fatalf("third message at 2 a minute: wait %v, %v; want about 30s", d, err)
	}
	if err := c.Sleep(t.Context(), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if d, err := l.Allow(t.Context(), rule); err != nil || d != 0 {
		t.Errorf("after the refusal's 30s: wait %v, %v; a refusal must not use up the allowance", d, err)
	}
}

// Without Redis a limiter keeps holds on this replica (a provider without
// shared rates), and refuses a shared rule.
func TestLimiterWithoutRedisHoldsThisReplica(t *testing.T) {
	l := ratelimit.New(nil, ratelimit.Keys{}, nil)
	if d, err := l.HeldFor(t.Context(), "pause"); err != nil || d != 0 {
		t.Fatalf("HeldFor before any hold = %v, %v", d, err)
	}
	if err := l.Hold(t.Context(), "pause", time.Minute); err != nil {
		t.Fatal(err)
	}
	if d, err := l.HeldFor(t.Context(), "pause"); err != nil || d < 59*time.Second {
		t.Errorf("HeldFor after a 1m hold = %v, %v", d, err)
	}
	rule := ratelimit.Rule{Key: "rpm", Limit: ratelimit.PerMinute(60, 60)}
	if err := l.Wait(t.Context(), nil, rule); err == nil {
		t.Error("a shared rule passed a limiter without Redis")
	}
}

// pttlGate blocks the PTTL commands a client sends until opened, and
// counts them.
type pttlGate struct {
	n    atomic.Int32
	open chan struct{}
}

func (g *pttlGate) DialHook(next redis.DialHook) redis.DialHook { return next }

func (g *pttlGate) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (g *pttlGate) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "pttl" {
			g.n.Add(1)
			<-g.open
		}
		return next(ctx, cmd)
	}
}

// gatedLimiter is a limiter on an embedded Redis whose PTTL commands wait
// for the gate.
func gatedLimiter(t *testing.T) (*ratelimit.Limiter, *redis.Client, *pttlGate) {
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	t.Cleanup(func() { rdb.Close() })
	gate := &pttlGate{open: make(chan struct{})}
	rdb.AddHook(gate)
	return ratelimit.New(rdb, ratelimit.Sends("test"), nil), rdb, gate
}

// Sends that find a scope's hold due for a re-read at the same time share
// one read of it: one PTTL for the scope, not one per send.
func TestConcurrentSendsShareOneHoldRead(t *testing.T) {
	l, rdb, gate := gatedLimiter(t)
	if err := rdb.Set(t.Context(), "test:pace:hold:bot", "1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var held atomic.Int32
	for range 20 {
		wg.Go(func() {
			if d, err := l.HeldFor(t.Context(), "bot"); err != nil || d < 50*time.Second {
				t.Errorf("HeldFor = %v, %v; want the 1m hold", d, err)
			}
			held.Add(1)
		})
	}
	wait.Eventually(t, "the first read of the hold", func() bool { return gate.n.Load() >= 1 })
	// Nothing can be awaited for reads that must not happen: give the
	// other 19 a moment to send theirs if they would.
	time.Sleep(200 * time.Millisecond)
	close(gate.open)
	wg.Wait()
	if n := gate.n.Load(); n != 1 {
		t.Errorf("20 concurrent sends read the hold %d times, want once", n)
	}
	if held.Load() != 20 {
		t.Errorf("%d of 20 sends saw the hold", held.Load())
	}
}

// A send whose context ends while another's read of the hold is in flight
// stops waiting at once; the read still serves the others.
func TestHoldReadWaiterLeavesWithItsContext(t *testing.T) {
	l, _, gate := gatedLimiter(t)
	first := make(chan error, 1)
	go func() { _, err := l.HeldFor(t.Context(), "bot"); first <- err }()
	wait.Eventually(t, "the first read of the hold", func() bool { return gate.n.Load() >= 1 })
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := l.HeldFor(ctx, "bot"); !errors.Is(err, context.Canceled) {
		t.Errorf("HeldFor on an ended context = %v, want context.Canceled", err)
	}
	close(gate.open)
	if err := <-first; err != nil {
		t.Errorf("the read's own caller got %v", err)
	}
}
