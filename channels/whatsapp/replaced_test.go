package whatsapp

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw/channels/channeltest"
)

// The session was replaced because another replica took the lease (this
// one's renewals stalled): this replica goes back to standby instead of
// sitting out until restarted.
func TestStreamReplacedAfterLosingLeaseStandsBy(t *testing.T) {
	lease := newMemLease()
	f := newFakeClient()
	a, _ := testAdapter(Config{}, lease, openFake(f))
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)

	lease.steal(leaseName, "replica-b", time.Hour)
	f.emit(t, &events.StreamReplaced{})
	waitState(t, a, StateStandby)
	if s := a.State(); s.LeaseHeld {
		t.Errorf("state %+v: standing by but claims the lease", s)
	}
	if a.current() != nil {
		t.Error("a replaced session still sends")
	}
	if n := f.connectCount(); n != 1 {
		t.Errorf("%d connects: a standby must not fight the holder", n)
	}
}

// A foreign client with the same keys took the session while this replica
// still holds the lease: it parks (state, metric, alert naming the real
// causes), keeps the lease so other replicas do not fight, and stays off —
// no timed retry that would kick the other client and drift the
// encryption state — until an operator asks to reconnect, on any replica.
func TestStreamReplacedWhileHoldingStaysOffUntilOperatorReconnects(t *testing.T) {
	lease := newMemLease()
	f := newFakeClient()
	a, logs := testAdapter(Config{}, lease, openFake(f))
	a.tm.resumePoll = 7 * time.Millisecond
	polled := make(chan struct{}, 1000)
	sleepFor := a.wait
	a.wait = func(ctx context.Context, d time.Duration) bool {
		if d == a.tm.resumePoll {
			polled <- struct{}{}
		}
		return sleepFor(ctx, d)
	}
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)

	f.emit(t, &events.StreamReplaced{})
	f.waitCall(t, "disconnect")
	waitState(t, a, StateReplaced)
	for range 20 { // twenty looks for an operator's request, and no connect meanwhile
		<-polled
	}
	if n := f.connectCount(); n != 1 {
		t.Fatalf("%d connects while parked: the parked replica fought the other client", n)
	}
	if lease.holder(leaseName) != a.owner {
		t.Error("the parked replica gave the lease up")
	}
	if n := a.EventCounts()["stream_replaced"]; n != 1 {
		t.Errorf("stream_replaced count %d, want 1", n)
	}
	alert := logs.String()
	if !strings.Contains(alert, "level=ERROR msg=\"whatsapp connection state\" state=stream_replaced") ||
		!strings.Contains(alert, "second botgw deployment") || !strings.Contains(alert, "copy of it") {
		t.Errorf("no alert naming the real causes:\n%s", alert)
	}
	if strings.Contains(alert, "log it out") || strings.Contains(alert, "WhatsApp Web") {
		t.Errorf("the alert tells the operator to unlink a device, which can unlink the bot:\n%s", alert)
	}

	other, _ := testAdapter(Config{}, nil, nil) // another replica takes the operator's request
	other.shared = a.shared
	if err := other.Actions()["reconnect"](context.Background()); err != nil {
		t.Fatal(err)
	}
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
}
