package convo

import "time"

// Clock is the engine's time: what time it is, and a timer for the waits
// that shape turns (debounce, the turn rate limit). The real clock is the
// default; tests drive a fake one.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed. The
	// returned stop cancels the call unless it already began.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// realClock is the time of the machine.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

func (e *Engine) now() time.Time { return e.clock.Now() }
