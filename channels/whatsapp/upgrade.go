package whatsapp

import (
	"context"
	"fmt"
	"time"
)

// upgradeLock names the lease that serialises opening the device store:
// opening runs whatsmeow's schema migrations (Upgrade), and replicas that
// start at once against one PostgreSQL store must not run them together.
const upgradeLock = "whatsapp-store-upgrade"

// upgradeLockTTL is the upgrade lease's lifetime without renewal (a
// variable so tests can shorten it).
var upgradeLockTTL = 2 * time.Minute

// withUpgradeLock runs open while holding the upgrade lease, waiting (every
// poll) while another replica holds it, and renewing it every third of its
// TTL while open runs (a long migration keeps it). The lease expires by
// itself if a replica dies while migrating.
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
	stop := keepUpgradeLock(ctx, lease, owner, upgradeLockTTL/3)
	defer func() {
		stop()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = lease.Release(rctx, upgradeLock, owner)
	}()
	return open()
}

// keepUpgradeLock renews the upgrade lease every until stop is called.
func keepUpgradeLock(ctx context.Context, lease Lease, owner string, every time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				_, _ = lease.Renew(ctx, upgradeLock, owner, upgradeLockTTL)
			}
		}
	}()
	return func() { cancel(); <-done }
}
