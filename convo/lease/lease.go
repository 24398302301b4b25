// Package lease keeps the leases of the chats a replica is running: a
// Clock per lease tells whether it is surely still held, and one Renewer
// renews every lease about to go unconfirmed for a renewal interval.
package lease

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/botgw/botgw"
)

// Clock tells, by this replica's clock, whether a chat's lease is surely
// still its worker's: it is for a while after a request that confirmed it
// (the Begin that took it, or a renewal) was sent, a while shorter than
// the lease's TTL. Safe for concurrent use.
type Clock struct {
	mu   sync.Mutex
	last time.Time
}

// Confirmed records that a request sent at asked found the lease ours.
func (c *Clock) Confirmed(asked time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if asked.After(c.last) {
		c.last = asked
	}
}

// Sure reports whether the lease is surely still ours for another while
// after its last confirmation.
func (c *Clock) Sure(while time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Since(c.last) < while
}

// renewWakes is how many times per renewal interval the Renewer looks
// for leases to renew: a lease is renewed in the last of these slices of
// the interval since its last confirmation, so a turn shorter than the
// interval less one slice renews nothing.
const renewWakes = 8

// Renewer keeps alive the leases of the chats a replica is running: one
// goroutine for all of them, running while there are any, renews every
// lease about to go one renewal interval (Every) without confirmation, in
// one round trip for all (Store.RenewLeases). What a turn costs therefore
// does not grow with how long it waits on the model, beyond one lease
// renewal per interval. Set its fields before the first Hold.
type Renewer struct {
	Store botgw.Store
	Every time.Duration   // the renewal interval
	Ctx   context.Context // renewals stop when it ends (the engine's)

	mu      sync.Mutex
	held    map[*heldLease]struct{}
	running bool
}

// heldLease is one chat's lease as the Renewer keeps it.
type heldLease struct {
	chat  botgw.ChatKey
	lease string
	clock *Clock
	lost  context.CancelFunc // cancels the chat's turn: it could not commit
	log   *slog.Logger
}

// Hold keeps chat k's lease alive, clock telling when it was last
// confirmed, until the returned release is called; lost is called should
// the lease turn out to be another's.
func (r *Renewer) Hold(k botgw.ChatKey, lease string, clock *Clock, lost context.CancelFunc, log *slog.Logger) (release func()) {
	h := &heldLease{chat: k, lease: lease, clock: clock, lost: lost, log: log}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held == nil {
		r.held = make(map[*heldLease]struct{})
	}
	r.held[h] = struct{}{}
	if !r.running {
		r.running = true
		go r.run()
	}
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.held, h)
	}
}

// run renews the due leases at every wake until none are held or the
// engine stops.
func (r *Renewer) run() {
	every := r.Every
	slice := max(every/renewWakes, time.Millisecond)
	t := time.NewTicker(slice)
	defer t.Stop()
	for {
		select {
		case <-r.Ctx.Done():
			r.stopped()
			return
		case <-t.C:
		}
		due, ok := r.due(every - slice)
		if !ok {
			return
		}
		if len(due) > 0 {
			r.renew(due)
		}
	}
}

func (r *Renewer) stopped() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = false
}

// due lists the leases unconfirmed for at least age; ok is false (and the
// Renewer stops) when no lease is held.
func (r *Renewer) due(age time.Duration) (due []*heldLease, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.held) == 0 {
		r.running = false
		return nil, false
	}
	for h := range r.held {
		if !h.clock.Sure(age) {
			due = append(due, h)
		}
	}
	return due, true
}

// renew renews the leases due and acts on each answer: a confirmed lease
// is sure for another interval, a lost one cancels its chat's turn.
func (r *Renewer) renew(due []*heldLease) {
	asked := time.Now()
	errs := r.renewAll(due)
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, h := range due {
		if _, still := r.held[h]; !still {
			continue // the chat ended meanwhile: its lease is no longer held
		}
		switch err := errs[i]; {
		case err == nil:
			h.clock.Confirmed(asked)
		case errors.Is(err, botgw.ErrLeaseLost):
			h.log.Warn("lease lost during turn; cancelling it")
			delete(r.held, h)
			h.lost()
		case r.Ctx.Err() == nil:
			h.log.Warn("renew lease", "err", err)
		}
	}
}

// renewAll asks the store to renew the leases, in one call.
func (r *Renewer) renewAll(due []*heldLease) []error {
	chats, leases := make([]botgw.ChatKey, len(due)), make([]string, len(due))
	for i, h := range due {
		chats[i], leases[i] = h.chat, h.lease
	}
	return r.Store.RenewLeases(r.Ctx, chats, leases)
}
