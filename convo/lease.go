package convo

import (
	"context"
	"fmt"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/lease"
)

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
func (e *Engine) keep(ctx context.Context, k botgw.ChatKey, snap *botgw.Snapshot, st *known, held *lease.Clock) error {
	if !held.Sure(e.leaseSure()) {
		asked := time.Now()
		if err := e.deps.Store.Renew(ctx, k, snap.Lease); err != nil {
			return fmt.Errorf("confirm lease: %w", err)
		}
		held.Confirmed(asked)
	}
	snap.Version, snap.Blob, snap.TTL = st.version, st.blob, st.ttl
	return nil
}
