package convo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/botgw/botgw"
)

// leaseClock tells, by this replica's clock, whether the chat's lease is
// surely still the worker's: it is for a while after a request that
// confirmed it (the Begin that took it, or a renewal) was sent, a while
// shorter than the lease's TTL (see leaseSure).
type leaseClock struct {
	mu   sync.Mutex
	last time.Time
}

// confirmed records that a request sent at asked found the lease ours.
func (c *leaseClock) confirmed(asked time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if asked.After(c.last) {
		c.last = asked
	}
}

// sure reports whether the lease is surely still ours for another while
// after its last confirmation.
func (c *leaseClock) sure(while time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Since(c.last) < while
}

// leaseSure is how long a confirmed lease is surely the worker's: one
// renewal interval (the renewal confirms it again by then), and at most
// half the store's lease TTL, should the interval be configured longer.
func (e *Engine) leaseSure() time.Duration {
	d := e.cfg.LeaseRenew
	if s, ok := e.deps.Store.(interface{ LeaseTTL() time.Duration }); ok {
		d = min(d, s.LeaseTTL()/2)
	}
	return d
}

// keep completes a Kept snapshot with the state the worker knows, after
// making sure of the lease: FinishNext checked it only if replies were
// left, and a turn run on a lost lease (its model call, its tools) would
// be refused at its commit. Should the renewal be late, the lease is
// checked (and extended) with Renew.
func (e *Engine) keep(ctx context.Context, k botgw.ChatKey, snap *botgw.Snapshot, st *known, held *leaseClock) error {
	if !held.sure(e.leaseSure()) {
		asked := time.Now()
		if err := e.deps.Store.Renew(ctx, k, snap.Lease); err != nil {
			return fmt.Errorf("confirm lease: %w", err)
		}
		held.confirmed(asked)
	}
	snap.Version, snap.Blob, snap.TTL = st.version, st.blob, st.ttl
	return nil
}

// renewWakes is how many times per renewal interval the renewer looks
// for leases to renew: a lease is renewed in the last of these slices of
// the interval since its last confirmation, so a turn shorter than the
// interval less one slice renews nothing.
const renewWakes = 8

// renewer keeps alive the leases of the chats this replica is running: one
// goroutine for all of them, running while there are any, renews every
// lease about to go one renewal interval without confirmation, in one
// round trip for all (leasesRenewer) or one per lease. What a turn costs
// therefore does not grow with how long it waits on the model, beyond one
// lease renewal per interval.
type renewer struct {
	e       *Engine
	mu      sync.Mutex
	held    map[*heldLease]struct{}
	running bool
}

// heldLease is one chat's lease as the renewer keeps it.
type heldLease struct {
	chat  botgw.ChatKey
	lease string
	clock *leaseClock
	lost  context.CancelFunc // cancels the chat's turn: it could not commit
	log   *slog.Logger
}

// leasesRenewer is a store that renews many leases in one round trip
// (state.Store).
type leasesRenewer interface {
	RenewLeases(ctx context.Context, chats []botgw.ChatKey, leases []string) []error
}

// hold keeps chat k's lease alive, clock telling when it was last
// confirmed, until the returned release is called; lost is called should
// the lease turn out to be another's.
func (r *renewer) hold(k botgw.ChatKey, lease string, clock *leaseClock, lost context.CancelFunc, log *slog.Logger) (release func()) {
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
func (r *renewer) run() {
	every := r.e.cfg.LeaseRenew
	slice := max(every/renewWakes, time.Millisecond)
	t := time.NewTicker(slice)
	defer t.Stop()
	for {
		select {
		case <-r.e.ctx.Done():
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

func (r *renewer) stopped() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running = false
}

// due lists the leases unconfirmed for at least age; ok is false (and the
// renewer stops) when no lease is held.
func (r *renewer) due(age time.Duration) (due []*heldLease, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.held) == 0 {
		r.running = false
		return nil, false
	}
	for h := range r.held {
		if !h.clock.sure(age) {
			due = append(due, h)
		}
	}
	return due, true
}

// renew renews the leases due and acts on each answer: a confirmed lease
// is sure for another interval, a lost one cancels its chat's turn.
func (r *renewer) renew(due []*heldLease) {
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
			h.clock.confirmed(asked)
		case errors.Is(err, botgw.ErrLeaseLost):
			h.log.Warn("lease lost during turn; cancelling it")
			delete(r.held, h)
			h.lost()
		case r.e.ctx.Err() == nil:
			h.log.Warn("renew lease", "err", err)
		}
	}
}

// renewAll asks the store to renew the leases, in one call when it can.
func (r *renewer) renewAll(due []*heldLease) []error {
	ctx := r.e.ctx
	chats, leases := make([]botgw.ChatKey, len(due)), make([]string, len(due))
	for i, h := range due {
		chats[i], leases[i] = h.chat, h.lease
	}
	if s, ok := r.e.deps.Store.(leasesRenewer); ok {
		return s.RenewLeases(ctx, chats, leases)
	}
	errs := make([]error, len(due))
	var wg sync.WaitGroup
	for i := range due {
		wg.Go(func() { errs[i] = r.e.deps.Store.Renew(ctx, chats[i], leases[i]) })
	}
	wg.Wait()
	return errs
}
