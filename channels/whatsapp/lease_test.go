package whatsapp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
)

// memLease is an in-memory Lease honouring TTLs, as the Redis one does.
type memLease struct {
	mu     sync.Mutex
	owner  map[string]string
	expiry map[string]time.Time
}

func newMemLease() *memLease {
	return &memLease{owner: map[string]string{}, expiry: map[string]time.Time{}}
}

func (l *memLease) TryAcquire(_ context.Context, name, owner string, ttl time.Duration) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o := l.owner[name]; o != "" && o != owner && time.Now().Before(l.expiry[name]) {
		return false, nil
	}
	l.owner[name], l.expiry[name] = owner, time.Now().Add(ttl)
	return true, nil
}

func (l *memLease) Renew(_ context.Context, name, owner string, ttl time.Duration) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner[name] != owner || !time.Now().Before(l.expiry[name]) {
		return false, nil
	}
	l.expiry[name] = time.Now().Add(ttl)
	return true, nil
}

func (l *memLease) Release(_ context.Context, name, owner string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner[name] == owner {
		delete(l.owner, name)
	}
	return nil
}

// steal hands the lease to another owner, as if this one's had expired.
func (l *memLease) steal(name, owner string, ttl time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.owner[name], l.expiry[name] = owner, time.Now().Add(ttl)
}

func (l *memLease) holder(name string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.owner[name]
}

// crashingLease is a replica's view of the lease that stops working when
// the replica dies: no renewals and no release.
type crashingLease struct {
	*memLease
	mu   sync.Mutex
	dead bool
}

func (c *crashingLease) crash() {
	c.mu.Lock()
	c.dead = true
	c.mu.Unlock()
}

func (c *crashingLease) isDead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

func (c *crashingLease) Renew(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	if c.isDead() {
		return false, errors.New("process gone")
	}
	return c.memLease.Renew(ctx, name, owner, ttl)
}

func (c *crashingLease) Release(ctx context.Context, name, owner string) error {
	if c.isDead() {
		return nil
	}
	return c.memLease.Release(ctx, name, owner)
}

func TestOnlyOneReplicaConnectsAndAnotherTakesOverWithinTTL(t *testing.T) {
	const ttl = 300 * time.Millisecond
	shared := newMemLease()
	leaseA := &crashingLease{memLease: shared}
	fa, fb := newFakeClient(), newFakeClient()
	a, _ := testAdapter(Config{LeaseTTL: ttl}, leaseA, openFake(fa))
	b, _ := testAdapter(Config{LeaseTTL: ttl}, shared, openFake(fb))

	stopA := listen(t, a, (&channeltest.Store{}).Deliver)
	fa.waitCall(t, "connect")
	listen(t, b, (&channeltest.Store{}).Deliver)
	waitState(t, b, StateStandby)
	if err := b.Health(); err != nil {
		t.Errorf("standby replica Health() = %v, want nil", err)
	}
	time.Sleep(2 * ttl) // several renewals: A must keep the lease
	if fb.connectCount() != 0 {
		t.Fatal("second replica connected while the first held the session")
	}

	died := time.Now()
	leaseA.crash()
	stopA()
	fb.waitCall(t, "connect")
	// Protocol deadline, with slack for a loaded machine: the lease expires
	// at most ttl after the crash and standby retries every ttl/3.
	if took := time.Since(died); took > 5*ttl {
		t.Errorf("takeover took %v, want about the lease time (%v)", took, ttl)
	}
	if fa.IsConnected() {
		t.Error("both replicas connected")
	}
	if shared.holder(leaseName) != b.owner {
		t.Errorf("lease holder = %q, want replica b", shared.holder(leaseName))
	}
}

func TestLostLeaseDisconnectsAtOnce(t *testing.T) {
	const ttl = 300 * time.Millisecond
	lease := newMemLease()
	f := newFakeClient()
	a, logs := testAdapter(Config{LeaseTTL: ttl}, lease, openFake(f))
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)

	lease.steal(leaseName, "other-replica", time.Hour)
	f.waitCall(t, "disconnect")
	waitState(t, a, StateStandby)
	if a.State().LeaseHeld {
		t.Error("LeaseHeld still true after losing the lease")
	}
	if a.current() != nil {
		t.Error("a replica without the lease still offers a client to send with")
	}
	if lease.holder(leaseName) != "other-replica" {
		t.Error("the replica that lost the lease released the new holder's lease")
	}
	wait.Eventually(t, "lease loss logged", func() bool { return strings.Contains(logs.String(), "lease lost") })
}

// failingRenew is a lease whose store stops answering after acquisition.
type failingRenew struct{ *memLease }

func (failingRenew) Renew(context.Context, string, string, time.Duration) (bool, error) {
	return false, errors.New("redis: connection refused")
}

func TestUnconfirmedLeaseDisconnectsBeforeExpiry(t *testing.T) {
	const ttl = 300 * time.Millisecond
	f := newFakeClient()
	a, logs := testAdapter(Config{LeaseTTL: ttl}, failingRenew{newMemLease()}, openFake(f))
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	f.waitCall(t, "disconnect")
	out := logs.String()
	if !strings.Contains(out, "renewal failed; retrying") {
		t.Errorf("a transient renewal failure was not tolerated:\n%s", out)
	}
	if !strings.Contains(out, "could not be renewed before expiry") {
		t.Errorf("disconnect not explained:\n%s", out)
	}
}
