package whatsapp

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// ConnState is where the WhatsApp session of this replica stands.
type ConnState string

const (
	StateStopped      ConnState = "stopped"           // Listen is not running
	StateNotLinked    ConnState = "not_linked"        // no paired device in the store
	StateStandby      ConnState = "standby"           // another replica holds the session lease
	StateConnecting   ConnState = "connecting"        // holding the lease, logging in
	StateConnected    ConnState = "connected"         // logged in, messages flow
	StateDisconnected ConnState = "disconnected"      // connection lost, reconnecting with backoff
	StateKeepAlive    ConnState = "keepalive_timeout" // keep-alive pings failing
	StateLoggedOut    ConnState = "logged_out"        // the device was unlinked: re-link
	StateBanned       ConnState = "temporarily_banned"
	StateReplaced     ConnState = "stream_replaced" // another client took the session; retried after a back-off
	StateOutdated     ConnState = "client_outdated" // WhatsApp rejects this whatsmeow version
)

// State is the link and connection state, for the operator page and the
// admin API.
type State struct {
	State  ConnState `json:"state"`
	Linked bool      `json:"linked"`
	JID    string    `json:"jid,omitempty"` // the linked number, e.g. 447700900123@s.whatsapp.net
	Since  time.Time `json:"since"`
	// Detail explains the state to an operator and says what to do.
	Detail string `json:"detail,omitempty"`
	// LeaseHeld is true while this replica holds the session lease.
	LeaseHeld bool `json:"lease_held"`
	// BanExpires is when a temporary ban ends (zero if unknown or none).
	BanExpires time.Time `json:"ban_expires,omitzero"`
	// RetryAt is when a session another client took over is tried again
	// (state stream_replaced).
	RetryAt time.Time `json:"retry_at,omitzero"`
	// Reconnects counts connection attempts since the last successful login.
	Reconnects int `json:"reconnects,omitempty"`
}

// usable reports whether this replica is fine: connected, or standing by
// while another replica holds the session.
func (s State) usable() bool {
	return s.State == StateConnected || s.State == StateStandby
}

// stateBox guards the current State.
type stateBox struct {
	mu sync.Mutex
	s  State
}

func (b *stateBox) get() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.s
}

// set moves to st with detail, stamping Since when the state changes, and
// reports whether it changed.
func (b *stateBox) set(st ConnState, detail string, edit func(*State)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	changed := b.s.State != st || b.s.Detail != detail
	if b.s.State != st {
		b.s.Since = time.Now()
	}
	b.s.State, b.s.Detail = st, detail
	if edit != nil {
		edit(&b.s)
	}
	return changed
}

func (b *stateBox) update(edit func(*State)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	edit(&b.s)
}

// State returns the link and connection state of this replica.
func (a *Adapter) State() State { return a.state.get() }

// Health is nil while WhatsApp is usable from this deployment: connected
// here, or held by another replica. Otherwise it says why and what to do.
func (a *Adapter) Health() error {
	s := a.state.get()
	if s.usable() {
		return nil
	}
	if s.Detail == "" {
		return fmt.Errorf("whatsapp: %s", s.State)
	}
	return errors.New("whatsapp: " + s.Detail)
}

// Holding reports whether this replica holds the WhatsApp session lease, so
// the engine runs this channel's turns only where replies can be sent.
func (a *Adapter) Holding() bool { return a.State().LeaseHeld }

// Status is the link and connection state for the operator API
// (GET /v1/admin/whatsapp).
func (a *Adapter) Status() any { return a.State() }
