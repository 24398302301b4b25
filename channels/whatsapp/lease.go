package whatsapp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"time"
)

// Lease elects the one replica that holds the WhatsApp session: a linked
// device has one websocket, and two replicas connecting with the same keys
// evict each other. The gateway implements it on Redis (SET NX PX plus an
// owner-checking renew and release). Methods block for one round trip and
// are safe for concurrent use.
type Lease interface {
	// TryAcquire takes name for owner for ttl if it is free or already
	// owner's, and reports whether owner holds it now.
	TryAcquire(ctx context.Context, name, owner string, ttl time.Duration) (bool, error)
	// Renew extends owner's hold by ttl; false means owner no longer holds it.
	Renew(ctx context.Context, name, owner string, ttl time.Duration) (bool, error)
	// Release frees name if owner holds it; otherwise it does nothing.
	Release(ctx context.Context, name, owner string) error
}

const leaseName = "whatsapp"

// soloLease is the lease of a single-replica deployment (New with a nil
// Lease): always granted.
type soloLease struct{}

func (soloLease) TryAcquire(context.Context, string, string, time.Duration) (bool, error) {
	return true, nil
}
func (soloLease) Renew(context.Context, string, string, time.Duration) (bool, error) {
	return true, nil
}
func (soloLease) Release(context.Context, string, string) error { return nil }

// leaseOwner names this replica in the lease: host name plus a random
// suffix, so two processes on one host differ.
func leaseOwner() string {
	host, _ := os.Hostname()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return host + "-" + hex.EncodeToString(b)
}

// acquire blocks until this replica holds the lease (true) or ctx ends
// (false), trying again every ttl/3 while another replica holds it.
func (a *Adapter) acquire(ctx context.Context) bool {
	for ctx.Err() == nil {
		ok, err := a.lease.TryAcquire(ctx, leaseName, a.owner, a.ttl)
		if ok && err == nil {
			a.state.update(func(s *State) { s.LeaseHeld = true })
			return true
		}
		if err != nil && ctx.Err() == nil {
			a.log.Warn("whatsapp session lease unavailable", "err", err)
		}
		a.setState(StateStandby, "another replica holds the WhatsApp session")
		sleep(ctx, a.ttl/3)
	}
	return false
}

// renew keeps the lease while ctx lives, every ttl/3. When the lease is
// lost, or cannot be confirmed before it would expire, it calls lost and
// returns: the caller must disconnect at once.
func (a *Adapter) renew(ctx context.Context, lost func()) {
	every := a.ttl / 3
	confirmed := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ok, err := a.renewOnce(ctx, every)
		switch {
		case ok:
			confirmed = time.Now()
			continue
		case err == nil:
			a.log.Error("whatsapp session lease lost to another replica: disconnecting")
		case time.Since(confirmed)+every < a.ttl:
			a.log.Warn("whatsapp session lease renewal failed; retrying", "err", err)
			continue
		default:
			a.log.Error("whatsapp session lease could not be renewed before expiry: disconnecting", "err", err)
		}
		lost()
		return
	}
}

func (a *Adapter) renewOnce(ctx context.Context, timeout time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return a.lease.Renew(ctx, leaseName, a.owner, a.ttl)
}

// release gives the lease back so another replica can take over at once.
func (a *Adapter) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := a.lease.Release(ctx, leaseName, a.owner); err != nil {
		a.log.Warn("whatsapp session lease release failed", "err", err)
	}
	a.state.update(func(s *State) { s.LeaseHeld = false })
	a.waits.wake()
}

// sleep waits d or until ctx ends, reporting whether the full wait passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
