package whatsapp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	waBinary "go.mau.fi/whatsmeow/binary"
	"go.mau.fi/whatsmeow/types/events"
)

// offline makes whatsmeow's own dials fail at once (no network).
func offline(rc *realClient) {
	rc.Client.SetWebsocketHTTPClient(&http.Client{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("network is unreachable")
		},
	}})
}

// Stream error 515: whatsmeow logs out of the stream and reconnects by
// itself; when that reconnect fails it only logs. The watchdog notices
// the session is no longer logged in, reports it and reconnects.
func TestRealClientStreamError515ReconnectFailingIsNoticed(t *testing.T) {
	a, rc, logs := realConnected(t)
	offline(rc)
	rc.internals().HandleStreamError(context.Background(), &waBinary.Node{Tag: "stream:error", Attrs: waBinary.Attrs{"code": "515"}})
	rc.waitCall(t, "disconnect")
	rc.waitCall(t, "connect")
	if a.EventCounts()["silent_death"] != 1 {
		t.Fatalf("silent_death %d, want 1\n%s", a.EventCounts()["silent_death"], logs)
	}
	if a.Health() == nil && a.current() == nil {
		t.Error("healthy while reconnecting")
	}
	rc.internals().HandleConnectSuccess(context.Background(), &waBinary.Node{Tag: "success"})
	waitState(t, a, StateConnected)
}

// Keep-alive pings failing past keepAliveMax (whatsmeow's own
// KeepAliveTimeout, dispatched through its handlers) force a reconnect.
func TestRealClientKeepAliveLossReconnects(t *testing.T) {
	a, rc, _ := realConnected(t)
	rc.internals().DispatchEvent(&events.KeepAliveTimeout{ErrorCount: 1, LastSuccess: time.Now()})
	waitState(t, a, StateKeepAlive)
	rc.internals().DispatchEvent(&events.KeepAliveTimeout{ErrorCount: 9, LastSuccess: time.Now().Add(-time.Hour)})
	rc.waitCall(t, "disconnect")
	rc.waitCall(t, "connect")
	rc.internals().HandleConnectSuccess(context.Background(), &waBinary.Node{Tag: "success"})
	waitState(t, a, StateConnected)
}
