package whatsapp

import (
	"context"
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
	StateReplaced     ConnState = "stream_replaced" // another client with the same keys took the session; off until an operator reconnects
	StateOutdated     ConnState = "client_outdated" // WhatsApp rejects this whatsmeow version
	StateLocked       ConnState = "banned"          // WhatsApp locked (403) or banned (406) the number: held, not re-linked
	StateRejected     ConnState = "client_rejected" // WhatsApp rejected this client (409 bad user agent, 418 unknown client): off
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
	// Reconnects counts connection attempts since the connection was last
	// healthy: the exponent of the reconnect back-off.
	Reconnects int `json:"reconnects,omitempty"`
	// Hold is the number's hold while one is in force (every replica's
	// sends wait for its end).
	Hold *Hold `json:"hold,omitempty"`
	// SentToday counts the number's messages this UTC day, all replicas
	// together, against DailyCap.
	SentToday int64 `json:"sent_today"`
	DailyCap  int   `json:"daily_cap"`
	// Waiting counts the sends waiting now on this replica, by reason
	// (not_connected, number_held, contact_held, daily_cap, cold_cap): none
	// becomes a dead letter for waiting.
	Waiting map[string]int `json:"waiting,omitempty"`
	// ColdToday counts the people who never wrote to the number that it
	// wrote to this UTC day, all replicas together, against ColdDailyCap.
	ColdToday    int64 `json:"cold_today"`
	ColdDailyCap int   `json:"cold_daily_cap"`
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

// statusTimeout bounds the Redis reads of Status.
const statusTimeout = 2 * time.Second

// Status is the link and connection state for the operator API
// (GET /v1/admin/whatsapp), with the number's hold and the day's sends as
// every replica sees them.
func (a *Adapter) Status() any {
	s := a.State()
	ctx, cancel := context.WithTimeout(context.Background(), statusTimeout)
	defer cancel()
	now := a.clock()
	if h, err := a.shared.hold(ctx, a.number()); err == nil && h.active(now) {
		s.Hold = &h
	}
	s.SentToday, _ = a.shared.sentOn(ctx, a.number(), day(now))
	s.DailyCap = a.cfg.dailyCap()
	s.Waiting = a.Waiting()
	s.ColdToday, _ = a.shared.coldOn(ctx, a.number(), day(now))
	s.ColdDailyCap = a.cfg.coldDailyCap()
	return s
}
