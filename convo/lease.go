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
	return min(e.cfg.LeaseRenew, e.deps.Store.LeaseTTL()/2)
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

// renew keeps the lease alive while a turn runs, so a slow provider never
// loses it; if it is lost anyway the turn is cancelled (it could not commit).
func (e *Engine) renew(ctx context.Context, cancel context.CancelFunc, k botgw.ChatKey, lease string, held *leaseClock, log *slog.Logger) {
	t := time.NewTicker(e.cfg.LeaseRenew)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		asked := time.Now()
		err := e.deps.Store.Renew(ctx, k, lease)
		if errors.Is(err, botgw.ErrLeaseLost) {
			log.Warn("lease lost during turn; cancelling it")
			cancel()
			return
		}
		if err == nil {
			held.confirmed(asked)
		} else if ctx.Err() == nil {
			log.Warn("renew lease", "err", err)
		}
	}
}

// release gives the lease back, on a context that outlives shutdown.
func (e *Engine) release(k botgw.ChatKey, lease string, log *slog.Logger) {
	if lease == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(e.ctx), 2*time.Second)
	defer cancel()
	if err := e.deps.Store.Release(ctx, k, lease); err != nil {
		log.Warn("release lease", "err", err)
	}
}
