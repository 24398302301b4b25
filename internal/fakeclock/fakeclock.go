// Package fakeclock is a clock that moves only when a test advances it, so
// tests of waits (debounce, pacing) run in no real time and in a known
// order. It has the shape of convo.Clock.
package fakeclock

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/wait"
)

// Clock is a fake clock. The zero value is not ready: use New. Safe for
// concurrent use.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*timer
}

type timer struct {
	at time.Time
	f  func()
}

// New returns a clock that reads start until advanced.
func New(start time.Time) *Clock { return &Clock{now: start} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc calls f in its own goroutine once the clock has been advanced
// by d or more. stop cancels the call and reports whether it did.
func (c *Clock) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &timer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.timers, t)
		if i < 0 {
			return false
		}
		c.timers = slices.Delete(c.timers, i, i+1)
		return true
	}
}

// Waiting is how many timers are set and not yet due.
func (c *Clock) Waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Advance moves the clock on by d and starts the timers that fell due,
// each in its own goroutine. It returns how many it started.
func (c *Clock) Advance(d time.Duration) int {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*timer
	c.timers = slices.DeleteFunc(c.timers, func(t *timer) bool {
		if t.at.After(c.now) {
			return false
		}
		due = append(due, t)
		return true
	})
	c.mu.Unlock()
	for _, t := range due {
		go t.f()
	}
	return len(due)
}

// Next is how long until the earliest timer falls due (0 if one is due
// already), and false when no timer is set.
func (c *Clock) Next() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return 0, false
	}
	first := slices.MinFunc(c.timers, func(a, b *timer) int { return a.at.Compare(b.at) })
	return max(first.at.Sub(c.now), 0), true
}

// AwaitTimer waits, in real time, until someone sets a timer (what names
// the waiter), and fails the test if nobody does within wait.Deadline.
func (c *Clock) AwaitTimer(t testing.TB, what string) {
	t.Helper()
	wait.Eventually(t, what, func() bool { return c.Waiting() > 0 })
}
