package whatsapp

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
)

// The logged-out back-off grows while the device keeps logging out, and
// starts over once a login succeeded in between.
func TestLoggedOutBackOffStartsOverAfterALogin(t *testing.T) {
	f := newFakeClient()
	a, _ := testAdapter(Config{}, nil, openFake(f))
	a.tm.relinkPoll, a.tm.backoffMax = 100*time.Millisecond, time.Hour
	waits := make(chan time.Duration, 10)
	a.wait = func(ctx context.Context, d time.Duration) bool {
		waits <- d
		return ctx.Err() == nil
	}
	listen(t, a, (&channeltest.Store{}).Deliver)
	var got []time.Duration
	for _, login := range []bool{false, false, true} {
		f.waitCall(t, "connect")
		if login {
			f.emit(t, &events.Connected{})
			waitState(t, a, StateConnected)
		}
		f.emit(t, &events.LoggedOut{Reason: events.ConnectFailureLoggedOut})
		got = append(got, <-waits)
	}
	if got[1] <= 100*time.Millisecond || got[2] > 100*time.Millisecond {
		t.Errorf("back-offs %v: want the second grown past 100ms, the third (after a login) back to ≤ 100ms", got)
	}
}

// renewCounter reports each renewal of the upgrade lock that succeeded.
type renewCounter struct {
	*memLease
	renewed chan struct{}
}

func (l *renewCounter) Renew(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	ok, err := l.memLease.Renew(ctx, name, owner, ttl)
	if ok && name == upgradeLock {
		l.renewed <- struct{}{}
	}
	return ok, err
}

// A long migration keeps the upgrade lock: it is renewed (every third of
// its TTL) while the store opens, so it does not expire under a replica
// that is still migrating.
func TestUpgradeLockRenewedWhileOpening(t *testing.T) {
	defer func(ttl time.Duration) { upgradeLockTTL = ttl }(upgradeLockTTL)
	upgradeLockTTL = 300 * time.Millisecond
	lease := &renewCounter{memLease: newMemLease(), renewed: make(chan struct{}, 100)}
	err := withUpgradeLock(context.Background(), lease, "a", time.Millisecond, func() error {
		for range 3 { // a migration lasting three renewals
			select {
			case <-lease.renewed:
			case <-time.After(10 * time.Second):
				return errors.New("the upgrade lock was not renewed during the migration")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// `botgw whatsapp link` opens the store under the upgrade lock: while a
// starting replica migrates it, link waits instead of migrating too.
func TestLinkWaitsForTheUpgradeLock(t *testing.T) {
	lease := newMemLease()
	lease.steal(upgradeLock, "starting-replica", time.Hour)
	cfg := linkConfig(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := Link(ctx, cfg, lease, "", io.Discard, discardLog())
	if err == nil || !strings.Contains(err.Error(), "another replica's upgrade") {
		t.Fatalf("Link = %v, want it to wait for the upgrade lock", err)
	}
	if _, err := os.Stat(cfg.sqlitePath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("store opened while another replica held the upgrade lock (%v)", err)
	}
}

// stuckAliases never answers (a Redis that hangs).
type stuckAliases struct{}

func (stuckAliases) Pin(ctx context.Context, _, _ string, _ time.Duration) (string, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

// Pinning a person's chat is bounded inside whatsmeow's event handler: a
// hanging alias store costs one bounded wait, and the message stays
// unacknowledged for redelivery.
func TestAliasPinBoundedInTheHandler(t *testing.T) {
	f := newFakeClient()
	f.pnToLID[alicePN] = aliceLID
	a, _ := testAdapter(Config{}, nil, openFake(f))
	a.tm.storeTimeout = 20 * time.Millisecond
	a.aliases = stuckAliases{}
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	done := make(chan bool, 1)
	go func() { done <- f.emit(t, dm("M1", alicePN, text("hi"))) }()
	select {
	case acked := <-done:
		if acked {
			t.Error("acknowledged a message whose chat could not be pinned")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the event handler hangs on the alias store")
	}
}

// A failed LID lookup is asked again at the person's next message after
// lookupRetry (at Warn, not Debug), so when their next message comes by
// LID it lands in the same conversation instead of a second one.
func TestFailedLIDLookupRetriedSoOnePersonIsOneChat(t *testing.T) {
	g := &ingress{}
	f := newFakeClient()
	f.directory[alicePN] = aliceLID
	f.lookupErr = []error{errors.New("info query timed out")}
	clock := &fakeClock{now: sentAt}
	a, logs := testAdapter(Config{}, nil, openFake(f))
	a.clock = clock.Now
	listen(t, a, g.deliver)
	f.waitCall(t, "connect")
	f.emit(t, dm("M1", alicePN, text("hi")))
	clock.advance(lookupRetry)
	f.emit(t, dm("M2", alicePN, text("hello?")))
	f.emit(t, fromLID("M3", aliceLID, types.JID{}))
	if chats := g.chats(); len(chats) != 1 || len(chats[key(alicePN.String())]) != 3 {
		t.Errorf("conversations %v, want M1-M3 in one chat", chats)
	}
	if !strings.Contains(logs.String(), "level=WARN msg=\"whatsapp LID lookup failed") {
		t.Errorf("failed lookup not logged at warn:\n%s", logs)
	}
}

// While the number is held, unknown numbers are not looked up
// (GetUserInfo is a request WhatsApp counts against the number).
func TestNoLIDLookupWhileTheNumberIsHeld(t *testing.T) {
	a, f, _, _ := connected(t, Config{})
	a.holdNumber(context.Background(), 429, time.Hour, "test")
	f.emit(t, dm("M1", alicePN, text("hi")))
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.lookups) != 0 {
		t.Errorf("%d GetUserInfo calls while the number was held", len(f.lookups))
	}
}

// Old messages stored by one replica still get their one reply when
// another replica takes the session over before the reply was asked for.
func TestBacklogSurvivesFailover(t *testing.T) {
	sh := testShared()
	clock := &fakeClock{now: sentAt.Add(3 * time.Hour)}
	first, second := &ingress{}, &ingress{}
	f1, f2 := newFakeClient(), newFakeClient()
	a1, _ := testAdapter(Config{}, nil, openFake(f1))
	a2, _ := testAdapter(Config{}, nil, openFake(f2))
	for _, a := range []*Adapter{a1, a2} {
		a.shared, a.clock = sh, clock.Now
	}
	stop := listen(t, a1, first.deliver)
	f1.waitCall(t, "connect")
	f1.emit(t, backlogged("M1", sentAt, "hello?"))
	f1.emit(t, backlogged("M2", sentAt.Add(time.Minute), "anyone?"))
	stop() // the replica dies before the offline sync ends
	listen(t, a2, second.deliver)
	f2.waitCall(t, "connect")
	f2.emit(t, &events.OfflineSyncCompleted{Count: 0})
	wait.Eventually(t, "the backlog's reply requested", func() bool {
		second.mu.Lock()
		defer second.mu.Unlock()
		return len(second.ins) == 1
	})
	in := second.ins[0]
	if in.Kind != botgw.KindEvent || !in.Event.Respond || !strings.Contains(in.Event.Text, "last 2 message(s)") {
		t.Errorf("requested %+v, want one reply covering both messages", in.Event)
	}
}
