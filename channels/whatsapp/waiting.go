package whatsapp

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"github.com/botgw/botgw"
)

// Why a send waits, as Status counts them (see docs/whatsapp.md, "What
// waits").
const (
	waitOffline = "not_connected" // the session is down: disconnected, banned, parked
	waitHold    = "number_held"   // the number's hold (ban, 463, 429, repeated 403s)
	waitDaily   = "daily_cap"     // the day's sends are spent
	waitCold    = "cold_cap"      // the day's first messages to cold contacts are spent
	waitAway    = "not_holding"   // no replica here holds the session: the engine keeps the reply
)

// waiters counts the sends waiting now on this replica, by reason, and
// wakes them when the session's client changes.
type waiters struct {
	mu      sync.Mutex
	n       map[string]int
	changed chan struct{} // closed and replaced on every change of client or lease
}

// enter counts one send waiting for why; call the returned func when it
// stops waiting.
func (w *waiters) enter(why string) func() {
	w.mu.Lock()
	if w.n == nil {
		w.n = map[string]int{}
	}
	w.n[why]++
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		if w.n[why]--; w.n[why] <= 0 {
			delete(w.n, why)
		}
		w.mu.Unlock()
	}
}

// counts is a copy of the waiting sends by reason (nil when none).
func (w *waiters) counts() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.n) == 0 {
		return nil
	}
	return maps.Clone(w.n)
}

// watch is a channel closed at the next change of client or lease.
func (w *waiters) watch() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.changed == nil {
		w.changed = make(chan struct{})
	}
	return w.changed
}

// wake tells every waiting send to look again.
func (w *waiters) wake() {
	w.mu.Lock()
	if w.changed != nil {
		close(w.changed)
		w.changed = nil
	}
	w.mu.Unlock()
}

// sendClient is the client to send with. While this replica holds the
// session and it is down (reconnecting, banned, parked after another
// client took it, client outdated), the send waits here for the client
// to come back, however long that takes: nothing becomes a dead letter
// because WhatsApp is away. Without the session here it returns a
// PlatformError with Waiting set, which keeps the reply in the engine's
// outbox without spending a delivery round.
func (a *Adapter) sendClient(ctx context.Context) (client, error) {
	for {
		changed := a.waits.watch()
		if cli := a.current(); cli != nil {
			return cli, nil
		}
		st := a.state.get()
		if !st.LeaseHeld {
			return nil, &botgw.PlatformError{Channel: Name, Waiting: waitAway,
				Err: fmt.Errorf("not connected to WhatsApp on this replica (%s)", st.State)}
		}
		done := a.waits.enter(waitOffline)
		select {
		case <-changed:
			done()
		case <-ctx.Done():
			done()
			return nil, &botgw.PlatformError{Channel: Name, Err: fmt.Errorf("wait for the WhatsApp connection (%s): %w", st.State, ctx.Err())}
		}
	}
}

// Waiting is how many sends wait on this replica now, by reason.
func (a *Adapter) Waiting() map[string]int { return a.waits.counts() }
