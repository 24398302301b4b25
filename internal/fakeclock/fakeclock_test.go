package fakeclock

import (
	"testing"
	"time"
)

func TestTimersFireOnlyWhenTheClockPassesThem(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	c := New(start)
	fired := make(chan string, 3)
	c.AfterFunc(time.Second, func() { fired <- "1s" })
	stop := c.AfterFunc(2*time.Second, func() { fired <- "2s" })
	c.AfterFunc(3*time.Second, func() { fired <- "3s" })

	if d, ok := c.Next(); !ok || d != time.Second {
		t.Fatalf("Next = %v, %v; want 1s, true", d, ok)
	}
	if n := c.Advance(999 * time.Millisecond); n != 0 {
		t.Fatalf("%d timers fired before their time", n)
	}
	if n := c.Advance(time.Millisecond); n != 1 || <-fired != "1s" {
		t.Fatalf("advancing to 1s fired %d timers, want the 1s one", n)
	}
	if !stop() || stop() {
		t.Error("stop should cancel a pending timer once, and report false after")
	}
	if n := c.Advance(5 * time.Second); n != 1 || <-fired != "3s" {
		t.Fatalf("advancing past 3s fired %d timers, want only the 3s one (2s was stopped)", n)
	}
	if got := c.Now(); !got.Equal(start.Add(6 * time.Second)) {
		t.Errorf("Now = %v, want start + 6s", got)
	}
	if _, ok := c.Next(); ok || c.Waiting() != 0 {
		t.Error("timers left after all fired or stopped")
	}
}
