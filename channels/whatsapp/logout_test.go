package whatsapp

import (
	"context"
	"errors"
	"strings"
	"testing"

	waBinary "go.mau.fi/whatsmeow/binary"
	"go.mau.fi/whatsmeow/store/sqlstore"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
)

// connectFailure feeds whatsmeow's own handler a <failure> node, as the
// server sends it at login, on ctx (the connection's context).
func connectFailure(ctx context.Context, rc *realClient, reason string) {
	n := waBinary.Node{Tag: "failure", Attrs: waBinary.Attrs{"reason": reason}}
	rc.internals().HandleConnectFailure(ctx, &n)
}

func devices(t *testing.T, rc *realClient) int {
	t.Helper()
	devs, err := rc.Store.Container.(*sqlstore.Container).GetAllDevices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(devs)
}

// A logout (401) whose connection context is already cancelled — as the
// session cancels it when it ends — still deletes the device from the
// store: whatsmeow's own delete is cut off, the adapter's is not.
func TestRealClientLoggedOutDeletesTheDevice(t *testing.T) {
	a, rc, logs := realConnected(t)
	if devices(t, rc) != 1 {
		t.Fatal("want the linked device in the store")
	}
	cut, cancel := context.WithCancel(context.Background())
	cancel()
	connectFailure(cut, rc, "401")
	waitState(t, a, StateLoggedOut)
	wait.Eventually(t, "the device deleted", func() bool { return devices(t, rc) == 0 })
	if !strings.Contains(a.State().Detail, "re-link") {
		t.Errorf("detail %q, want the re-link advice for a plain logout\n%s", a.State().Detail, logs)
	}
}

// 403 (LOCKED) and 406 (BANNED) reach the adapter as LoggedOut: they are
// bans, so the number is held on every replica with the reason, the
// operator is told not to re-link it, and a reply waits instead of
// failing or being sent.
func TestRealClientLockedOrBannedLogoutHoldsTheNumber(t *testing.T) {
	for _, code := range []string{"403", "406"} {
		t.Run(code, func(t *testing.T) {
			a, rc, _ := realConnected(t)
			connectFailure(context.Background(), rc, code)
			waitState(t, a, StateLocked)
			s := a.Status().(State)
			if s.Hold == nil || s.Hold.Code != map[string]int{"403": 403, "406": 406}[code] {
				t.Fatalf("hold %+v, want one for %s", s.Hold, code)
			}
			if strings.Contains(s.Detail, "re-link it with") || !strings.Contains(s.Detail, "Do not re-link") {
				t.Errorf("detail %q advises re-linking a banned number", s.Detail)
			}
			if err := a.Health(); err == nil || !strings.Contains(err.Error(), "banned") && !strings.Contains(err.Error(), "locked") {
				t.Errorf("Health() = %v, want the ban", err)
			}
			wait.Eventually(t, "the lease given up", func() bool { return !a.State().LeaseHeld })
			err := a.Send(context.Background(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: alicePN.String()}, ID: "r1", Text: "hello"})
			var pe *botgw.PlatformError
			if !errors.As(err, &pe) || pe.Permanent || pe.Waiting == "" || len(rc.sent.all()) != 0 {
				t.Errorf("Send = %v (sent %d), want a wait, nothing sent", err, len(rc.sent.all()))
			}
		})
	}
}

// 409 (bad user agent) and 418 (unknown client) are refusals connecting
// again cannot fix: the session parks with a clear message instead of
// reconnecting forever.
func TestRealClientRejectedClientParks(t *testing.T) {
	for _, code := range []string{"409", "418"} {
		t.Run(code, func(t *testing.T) {
			a, rc, _ := realConnected(t)
			connectFailure(context.Background(), rc, code)
			waitState(t, a, StateRejected)
			if !strings.Contains(a.State().Detail, code) || !strings.Contains(a.State().Detail, "stays off") {
				t.Errorf("detail %q", a.State().Detail)
			}
			if a.EventCounts()["reconnect"] != 0 || rc.IsConnected() {
				t.Errorf("reconnected after %s", code)
			}
		})
	}
}
