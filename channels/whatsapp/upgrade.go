package whatsapp

import (
	"context"
	"fmt"
	"time"
)

// upgradeLock names the lease that serialises opening the device store:
// opening runs whatsmeow's schema migrations (Upgrade), and replicas that
// start at once against one PostgreSQL store must not run them together.
const (
	upgradeLock    = "whatsapp-store-upgrade"
	upgradeLockTTL = 2 * time.Minute
)

// withUpgradeLock runs open while holding the upgrade lease, waiting (every
// poll) while another replica holds it. The lease expires by itself if a
// replica dies while migrating.
func withUpgradeLock(ctx context.Context, lease Lease, owner string, poll time.Duration, open func() error) error {
	for {
		ok, err := lease.TryAcquire(ctx, upgradeLock, owner, upgradeLockTTL)
		if err != nil {
			return fmt.Errorf("whatsapp store: take the upgrade lock: %w", err)
		}
		if ok {
			break
		}
		if !sleep(ctx, poll) {
			return fmt.Errorf("whatsapp store: waiting for another replica's upgrade: %w", ctx.Err())
		}
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = lease.Release(rctx, upgradeLock, owner)
	}()
	return open()
}
