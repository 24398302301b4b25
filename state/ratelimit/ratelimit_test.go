package ratelimit_test

import (
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/ratelimit"
	"github.com/botgw/botgw/state/ratelimit/ratelimittest"
	"github.com/botgw/botgw/state/redistest"
)

// The GCRA runs on the embedded Redis: a burst goes at once, then one send
// per interval.
func TestWaitPacesAfterTheBurst(t *testing.T) {
	p, c := ratelimittest.New(t)
	start := c.Now()
	r := ratelimit.Rule{Key: "chat:1", Limit: ratelimit.PerSecond(1, 3)}
	for range 5 {
		if err := p.Wait(t.Context(), nil, r); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.Now().Sub(start); got < 2*time.Second || got > 2100*time.Millisecond {
		t.Errorf("5 sends at 1/s with a burst of 3 took %v of fake time, want 2s", got)
	}
	other := c.Now().Sub(start)
	if err := p.Wait(t.Context(), nil, ratelimit.Rule{Key: "chat:2", Limit: ratelimit.PerSecond(1, 3)}); err != nil {
		t.Fatal(err)
	}
	if c.Now().Sub(start) != other {
		t.Error("another chat waited for the first chat's limit")
	}
}

// A chat's own pace (kept with the chat by the engine) paces like the
// shared limiter, costs no Redis command, and goes on where it was left
// when the chat's next holder starts from what the last one stored.
func TestOwnPaceIsKeptWithTheChat(t *testing.T) {
	p, c := ratelimittest.New(t)
	start, before := c.Now(), c.Commands()
	own := botgw.NewSendPace(time.Time{})
	r := ratelimit.Rule{Key: "chat:1", Limit: ratelimit.PerSecond(1, 3), Own: own}
	for range 5 {
		if err := p.Wait(t.Context(), nil, r); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.Now().Sub(start); got != 2*time.Second {
		t.Errorf("5 sends at 1/s with a burst of 3 took %v of fake time, want 2s", got)
	}
	if n := c.Commands() - before; n != 0 {
		t.Errorf("sends on the chat's own pace made %d Redis commands, want 0", n)
	}
	stored, taken := own.Next()
	if !taken {
		t.Fatal("the pace says no slot was taken")
	}
	r.Own = botgw.NewSendPace(stored) // the chat's next holder
	mid := c.Now()
	if err := p.Wait(t.Context(), nil, r); err != nil {
		t.Fatal(err)
	}
	if got := c.Now().Sub(mid); got != time.Second {
		t.Errorf("the next holder's first send waited %v, want the 1s the limit still asks", got)
	}
}

// Waiters at one key queue behind one server: five sends at once at 1/s
// with no burst take four seconds, each wait once, not one poll each.
func TestWaitersAtOneKeyQueue(t *testing.T) {
	p, c := ratelimittest.New(t)
	start := c.Now()
	rule := ratelimit.Rule{Key: "bot", Limit: ratelimit.PerSecond(1, 1)}
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if err := p.Wait(t.Context(), nil, rule); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := c.Now().Sub(start); got < 4*time.Second || got > 4100*time.Millisecond {
		t.Errorf("5 sends at once at 1/s took %v of fake time (waits %v), want 4s", got, c.Slept())
	}
}

// A hold stops sends of its scope until it ends; other scopes go on.
func TestHoldStopsTheScope(t *testing.T) {
	p, c := ratelimittest.New(t)
	start := c.Now()
	if err := p.Hold(t.Context(), "bot", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := p.Hold(t.Context(), "bot", time.Second); err != nil { // shorter: the longer hold stays
		t.Fatal(err)
	}
	rule := ratelimit.Rule{Key: "bot", Limit: ratelimit.PerSecond(30, 1)}
	if err := p.Wait(t.Context(), []string{"other"}, rule); err != nil {
		t.Fatal(err)
	}
	if c.Now().Sub(start) != 0 {
		t.Error("a send of another scope waited for the hold")
	}
	if err := p.Wait(t.Context(), []string{"bot"}, rule); err != nil {
		t.Fatal(err)
	}
	if got := c.Now().Sub(start); got < 5*time.Second {
		t.Errorf("send went %v after a 5s hold", got)
	}
}

// A replica reads a scope's hold from Redis at most once a quarter second,
// so sends cost no call for it, and sees another replica's hold within that.
func TestHoldOfAnotherReplicaIsSeenWithinTheRecheck(t *testing.T) {
	a, c := ratelimittest.New(t)
	b := c.Replica(t)
	rule := ratelimit.Rule{Key: "chat:1", Limit: ratelimit.PerSecond(1000, 1000)}
	wait := func() time.Duration {
		start := c.Now()
		if err := b.Wait(t.Context(), []string{"bot"}, rule); err != nil {
			t.Fatal(err)
		}
		return c.Now().Sub(start)
	}
	wait()
	before := c.Commands()
	for range 10 {
		wait()
	}
	if n := c.Commands() - before; n > 10*4 { // redis_rate: EVALSHA and its script's TIME, GET, SET
		t.Errorf("10 sends cost %d Redis commands, want the limit's only (≤ 40), not a hold read each", n)
	}
	if err := a.Hold(t.Context(), "bot", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.Sleep(t.Context(), 250*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if waited := wait(); waited < 4*time.Second {
		t.Errorf("a send a quarter second after another replica's 5s hold waited %v", waited)
	}
}

// Two pacers on one real Redis (two replicas) share a limit: 21 sends at
// 20/s with no burst take at least a second, however they are split.
func TestLimitIsSharedByReplicas(t *testing.T) {
	u := redistest.URL(t)
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "ratelimittest" + time.Now().Format("150405.000000")
	var pacers []*ratelimit.Limiter
	for range 2 {
		rdb := redis.NewClient(opt)
		t.Cleanup(func() { rdb.Close() })
		pacers = append(pacers, ratelimit.New(rdb, ratelimit.Sends(prefix), nil))
	}
	rule := ratelimit.Rule{Key: "bot", Limit: ratelimit.PerSecond(20, 1)}
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
