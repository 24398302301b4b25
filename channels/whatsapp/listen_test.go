package whatsapp

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/syncbuf"
	"github.com/botgw/botgw/internal/wait"
)

// connected starts Listen on a fake client and brings it to "connected".
func connected(t *testing.T, cfg Config) (*Adapter, *fakeClient, *syncbuf.Buffer, func()) {
	t.Helper()
	f := newFakeClient()
	a, logs := testAdapter(cfg, nil, openFake(f))
	stop := listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
	return a, f, logs, stop
}

func waitState(t *testing.T, a *Adapter, want ConnState) {
	t.Helper()
	wait.Eventually(t, "state "+string(want), func() bool { return a.State().State == want })
}

func TestConnectedIsHealthy(t *testing.T) {
	a, _, _, _ := connected(t, Config{})
	s := a.State()
	if err := a.Health(); err != nil {
		t.Errorf("Health() = %v, want nil when connected", err)
	}
	if !s.Linked || s.JID != botPN.String() || !s.LeaseHeld {
		t.Errorf("State() = %+v, want linked as %s holding the lease", s, botPN)
	}
}

func TestDisconnectedReconnects(t *testing.T) {
	a, f, _, _ := connected(t, Config{})
	f.Disconnect() // the socket dropped
	f.emit(t, &events.Disconnected{})
	f.waitCall(t, "connect")
	if n := f.connectCount(); n != 2 {
		t.Errorf("connects = %d, want 2 (one reconnect)", n)
	}
	if a.Health() == nil {
		t.Error("Health() = nil while reconnecting, want an error")
	}
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
}

func TestConnectFailuresBackOffThenConnect(t *testing.T) {
	f := newFakeClient()
	f.connectErr = []error{errNetwork, errNetwork, errNetwork}
	a, logs := testAdapter(Config{}, nil, openFake(f))
	listen(t, a, (&channeltest.Store{}).Deliver)
	for range 4 {
		f.waitCall(t, "connect")
	}
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
	if !strings.Contains(logs.String(), "retry_in") {
		t.Errorf("logs do not report the backoff:\n%s", logs)
	}
	if s := a.State(); s.Reconnects != 3 {
		t.Errorf("Reconnects = %d after login, want 3: the back-off is reset only by a healthy connection", s.Reconnects)
	}
}

func TestLoggedOutStopsAlertsAndWaitsForRelink(t *testing.T) {
	f := newFakeClient()
	var mu sync.Mutex
	linked := f
	open := func(context.Context) (client, error) {
		mu.Lock()
		defer mu.Unlock()
		if linked == nil {
			return nil, errNotLinked
		}
		return linked, nil
	}
	a, logs := testAdapter(Config{}, nil, open)
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)

	mu.Lock()
	linked = nil // whatsmeow deletes the session on logout
	mu.Unlock()
	f.emit(t, &events.LoggedOut{OnConnect: true, Reason: events.ConnectFailureLoggedOut})
	waitState(t, a, StateLoggedOut)
	f.waitCall(t, "disconnect")
	err := a.Health()
	if err == nil || !strings.Contains(err.Error(), "botgw whatsapp link") {
		t.Errorf("Health() = %v, want an error telling the operator to re-link", err)
	}
	if !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("no error-level alert logged:\n%s", logs)
	}
	if a.State().Linked {
		t.Error("State().Linked = true after logout")
	}

	relinked := newFakeClient()
	mu.Lock()
	linked = relinked
	mu.Unlock()
	relinked.waitCall(t, "connect")
	relinked.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
	if n := f.connectCount(); n != 1 {
		t.Errorf("logged-out client connected %d times, want 1", n)
	}
}

func TestTemporaryBanWaitsForExpiry(t *testing.T) {
	a, f, logs, _ := connected(t, Config{})
	before := time.Now()
	f.emit(t, &events.TemporaryBan{Code: events.TempBanSentToTooManyPeople, Expire: 200 * time.Millisecond})
	waitState(t, a, StateBanned)
	s := a.State()
	if s.BanExpires.Before(before.Add(200*time.Millisecond)) || s.BanExpires.After(time.Now().Add(200*time.Millisecond)) {
		t.Errorf("BanExpires = %v, want about 200ms after the ban", s.BanExpires)
	}
	if err := a.Health(); err == nil || !strings.Contains(err.Error(), "banned") {
		t.Errorf("Health() = %v, want a ban error", err)
	}
	if !strings.Contains(logs.String(), "level=ERROR") {
		t.Error("ban not logged at error level")
	}
	f.waitCall(t, "connect") // after the expiry
	if !time.Now().After(s.BanExpires) {
		t.Error("reconnected before the ban expired")
	}
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
	if !a.State().BanExpires.IsZero() {
		t.Error("BanExpires kept after reconnecting")
	}
}

func TestPermanentDisconnectsStopWithoutReconnecting(t *testing.T) {
	tests := []struct {
		name   string
		event  any
		state  ConnState
		health string
	}{
		{"stream replaced", &events.StreamReplaced{}, StateReplaced, "another client"},
		{"client outdated", &events.ClientOutdated{}, StateOutdated, "update botgw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, f, _, stop := connected(t, Config{})
			f.emit(t, tt.event)
			waitState(t, a, tt.state)
			f.waitCall(t, "disconnect")
			if err := a.Health(); err == nil || !strings.Contains(err.Error(), tt.health) {
				t.Errorf("Health() = %v, want it to mention %q", err, tt.health)
			}
			if !a.State().LeaseHeld {
				t.Error("parked replica released the lease: another replica would fight for the session")
			}
			stop()
			if n := f.connectCount(); n != 1 {
				t.Errorf("connects = %d, want 1: no reconnect after %s", n, tt.name)
			}
		})
	}
}

func TestKeepAliveTimeouts(t *testing.T) {
	a, f, _, _ := connected(t, Config{})
	f.emit(t, &events.KeepAliveTimeout{ErrorCount: 1, LastSuccess: time.Now().Add(-30 * time.Second)})
	waitState(t, a, StateKeepAlive)
	if a.Health() == nil {
		t.Error("Health() = nil while keep-alives fail")
	}
	f.emit(t, &events.KeepAliveRestored{})
	waitState(t, a, StateConnected)

	f.emit(t, &events.KeepAliveTimeout{ErrorCount: 9, LastSuccess: time.Now().Add(-10 * time.Minute)})
	f.waitCall(t, "disconnect")
	f.waitCall(t, "connect")
	if n := f.connectCount(); n != 2 {
		t.Errorf("connects = %d, want a forced reconnect after long keep-alive failure", n)
	}
}

func TestNotLinkedIsReported(t *testing.T) {
	a, _ := testAdapter(Config{}, nil, func(context.Context) (client, error) { return nil, errNotLinked })
	listen(t, a, (&channeltest.Store{}).Deliver)
	waitState(t, a, StateNotLinked)
	if err := a.Health(); err == nil || !strings.Contains(err.Error(), "botgw whatsapp link") {
		t.Errorf("Health() = %v, want a hint to link", err)
	}
}

func TestListenStopsOnCancel(t *testing.T) {
	a, f, _, stop := connected(t, Config{})
	stop()
	if f.IsConnected() {
		t.Error("still connected after Listen returned")
	}
	if s := a.State(); s.State != StateStopped || s.LeaseHeld {
		t.Errorf("State() = %+v, want stopped without the lease", s)
	}
}

func TestBackoffGrowsWithJitter(t *testing.T) {
	lo, hi := 100*time.Millisecond, 2*time.Second
	seen := map[time.Duration]bool{}
	for n := 1; n <= 10; n++ {
		ceiling := min(lo<<(n-1), hi)
		for range 20 {
			d := backoff(lo, hi, n)
			if d < ceiling/2 || d > ceiling {
				t.Fatalf("backoff(attempt %d) = %v, want within [%v, %v]", n, d, ceiling/2, ceiling)
			}
			seen[d] = true
		}
	}
	if len(seen) < 20 {
		t.Errorf("only %d distinct waits in 200 draws: no jitter", len(seen))
	}
}

// TestConnectedMarksTheAccountOnline: once connected the adapter sends
// "available" presence, as WhatsApp Web does; when WhatsApp refuses it for
// want of the account's push name, it is sent when the name syncs.
func TestConnectedMarksTheAccountOnline(t *testing.T) {
	_, f, _, _ := connected(t, Config{})
	f.waitCall(t, "presence available")
	f.mu.Lock()
	online := slices.Clone(f.online)
	f.mu.Unlock()
	if !slices.Equal(online, []types.Presence{types.PresenceAvailable}) {
		t.Errorf("presences sent = %q, want one %q", online, types.PresenceAvailable)
	}
}

func TestPresenceWaitsForThePushName(t *testing.T) {
	f := newFakeClient()
	f.presErr = []error{whatsmeow.ErrNoPushName}
	a, _ := testAdapter(Config{}, nil, openFake(f))
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	f.waitCall(t, "presence available") // refused: no push name yet
	f.emit(t, &events.PushNameSetting{})
	f.waitCall(t, "presence available")
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.online) != 1 {
		t.Errorf("presence accepted %d times, want once, after the push name synced", len(f.online))
	}
}
