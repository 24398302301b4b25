package whatsapp

import (
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

// A foreign client took the session while this replica still holds the
// lease: it parks (state, metric, alert), keeps the lease so other
// replicas do not fight, and connects again after a back-off.
func TestStreamReplacedWhileHoldingParksThenRetries(t *testing.T) {
	lease := newMemLease()
	f := newFakeClient()
	a, logs := testAdapter(Config{}, lease, openFake(f))
	a.tm.replacedMin, a.tm.replacedMax = 20*time.Millisecond, 20*time.Millisecond
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)

	f.emit(t, &events.StreamReplaced{})
	f.waitCall(t, "disconnect")
	f.waitCall(t, "connect") // after the back-off
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
	if lease.holder(leaseName) != a.owner {
		t.Error("the parked replica gave the lease up")
	}
	if n := a.EventCounts()["stream_replaced"]; n != 1 {
		t.Errorf("stream_replaced count %d, want 1", n)
	}
	if !strings.Contains(logs.String(), "level=ERROR msg=\"whatsapp connection state\" state=stream_replaced") ||
		!strings.Contains(logs.String(), "connects again at") {
		t.Errorf("no alert naming the retry:\n%s", logs)
	}
	if !a.State().RetryAt.IsZero() {
		t.Error("RetryAt kept after reconnecting")
	}
}
