// Package ratelimittest builds limiters for tests: on an embedded Redis
// whose clock a fake Clock moves, so paced sends take no real time.
package ratelimittest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw/state/ratelimit"
)

// Clock is a fake ratelimit.Clock: Sleep moves the embedded Redis' TIME and TTLs
// forward instead of sleeping, and records the wait. Safe for concurrent
// use, but concurrent sleeps add up (use it for sends made one at a time).
type Clock struct {
	mu    sync.Mutex
	m     *miniredis.Miniredis
	now   time.Time
	slept []time.Duration
}

// Sleep records d and moves the clock by it.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
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

// Slept returns the waits so far.
func (c *Clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

// Now is the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// New returns a limiter with the send key layout under the prefix "test"
// on a fresh embedded Redis, and its fake clock.
func New(t testing.TB) (*ratelimit.Limiter, *Clock) {
	t.Helper()
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	t.Cleanup(func() { rdb.Close() })
	c := &Clock{m: m, now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	m.SetTime(c.now)
	return ratelimit.New(rdb, ratelimit.Sends("test"), nil).WithClock(c), c
}

// Replica returns another limiter on c's embedded Redis and clock: a
// second replica of the gateway.
func (c *Clock) Replica(t testing.TB) *ratelimit.Limiter {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: c.m.Addr()})
	t.Cleanup(func() { rdb.Close() })
	return ratelimit.New(rdb, ratelimit.Sends("test"), nil).WithClock(c)
}

// Commands is how many commands the embedded Redis has served.
func (c *Clock) Commands() int { return c.m.CommandCount() }

// ClockOf is the fake clock of a limiter made by New.
func ClockOf(l *ratelimit.Limiter) *Clock { return l.Clock().(*Clock) }
