package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mau.fi/whatsmeow/types/events"
)

// errLeaseGone is a store probe that found the session lease taken.
var errLeaseGone = errors.New("the whatsapp session lease is gone")

// redeliver waits until the store takes writes again (the probe passes,
// probed with a growing back-off), then reconnects once: WhatsApp
// redelivers unacknowledged messages only on a new connection. The
// reconnect counts in the session's back-off like any other, so a store
// that keeps refusing costs a few reconnects, not one every second. False
// means the session ended meanwhile.
func (s *session) redeliver(ctx context.Context) bool {
	for attempt := 1; ; attempt++ {
		err := s.a.storeWritable(ctx)
		if errors.Is(err, errLeaseGone) {
			return false // the renew loop ends the session
		}
		if err == nil {
			break
		}
		wait := backoff(s.a.tm.backoffMin, s.a.tm.backoffMax, attempt)
		s.a.log.Warn("whatsapp store refusing writes; messages stay unacknowledged until it takes them", "err", err, "retry_in", wait)
		if !s.a.wait(ctx, wait) {
			return false
		}
	}
	s.a.redeliverWanted.Store(false)
	s.a.counts.forcedReconnect.Add(1)
	return s.reconnect(ctx, "reconnecting so WhatsApp redelivers messages that could not be stored")
}

// storeWritable probes the store: the configured probe, else a lease
// renewal (errLeaseGone when another replica holds it).
func (a *Adapter) storeWritable(ctx context.Context) error {
	if a.probe != nil {
		ctx, cancel := context.WithTimeout(ctx, a.tm.storeTimeout)
		defer cancel()
		return a.probe(ctx)
	}
	ok, err := a.renewOnce(ctx, a.ttl/3)
	if err == nil && !ok {
		return errLeaseGone
	}
	return err
}

// replacedDetail is the stream_replaced alert. StreamReplaced means another
// client connected with this device's own keys (whatsmeow,
// types/events/events.go): it is never the phone or WhatsApp Web, which
// are devices of their own.
const replacedDetail = "another client connected with this linked device's own keys, so WhatsApp disconnected this gateway (%d times so far). " +
	"The cause is a second botgw deployment using this device store, or a copy of it (a restored backup, a copied SQLite file, a cloned database). " +
	"Stop that client, then reconnect here (console, or POST /v1/admin/whatsapp/reconnect). " +
	"This gateway stays off until then: two clients with one key set evict each other and corrupt the encryption state. " +
	"Removing a device under Linked devices on the phone does not help: it would unlink this gateway."

// replaced handles another client taking the session (StreamReplaced).
// When this replica lost the lease, another replica connected: the session
// ends and the replica goes back to standby (false). When it still holds
// the lease, a foreign client with the same keys took it: the session
// parks, keeping the lease so no other replica fights for it, raises the
// alert, and stays off until an operator asks to reconnect (on any
// replica: the request is shared in Redis) or the lease moves.
func (s *session) replaced(ctx context.Context) bool {
	s.a.setCurrent(nil)
	s.disconnect()
	if ok, err := s.a.renewOnce(ctx, s.a.ttl/3); err == nil && !ok {
		s.a.log.Warn("whatsapp session taken over by the replica that now holds the lease; standing by")
		return false
	}
	s.takeovers++
	s.a.counts.parked.Add(1)
	asked, err := s.a.shared.reconnectAsks(ctx)
	if err != nil {
		s.a.log.Warn("whatsapp reconnect requests unreadable", "err", err)
	}
	s.a.setState(StateReplaced, fmt.Sprintf(replacedDetail, s.takeovers))
	for {
		if !s.a.wait(ctx, s.a.tm.resumePoll) {
			return false
		}
		if n, err := s.a.shared.reconnectAsks(ctx); err == nil && n != asked {
			break
		}
	}
	s.a.log.Warn("whatsapp connecting again after stream_replaced, as an operator asked")
	s.attempts = 0
	return s.connect(ctx)
}

// Reconnect asks the replica holding the session to connect again after
// another client took it over (state stream_replaced). Any replica may
// take the request: it is shared in Redis.
func (a *Adapter) Reconnect(ctx context.Context) error {
	if err := a.shared.askReconnect(ctx); err != nil {
		return err
	}
	a.log.Warn("whatsapp reconnect requested by an operator")
	return nil
}

// keepAliveFailed reports failing pings, and reconnects once they have
// failed for keepAliveMax (whatsmeow's own forced reconnect is off).
func (s *session) keepAliveFailed(ctx context.Context, e *events.KeepAliveTimeout) bool {
	since := e.LastSuccess.Format(time.RFC3339)
	if s.a.clock().Sub(e.LastSuccess) < s.a.tm.keepAliveMax {
		s.a.setState(StateKeepAlive, fmt.Sprintf("WhatsApp keep-alive pings failing since %s (%d failures)", since, e.ErrorCount))
		return true
	}
	return s.reconnect(ctx, "WhatsApp keep-alive pings failing since "+since)
}

// banned waits out a temporary ban, holding the lease and the number (so
// no replica sends meanwhile), then reconnects.
func (s *session) banned(ctx context.Context, e *events.TemporaryBan) bool {
	s.a.setCurrent(nil)
	s.disconnect()
	wait, expiry := e.Expire, ""
	if wait <= 0 {
		wait, expiry = s.a.tm.banRetry, "unknown expiry; retrying at "
	}
	s.a.holdNumber(ctx, int(e.Code), wait, "WhatsApp temporarily banned the number: "+e.Code.String())
	until := s.a.clock().Add(wait)
	s.a.state.update(func(st *State) { st.BanExpires = until })
	s.a.setState(StateBanned, fmt.Sprintf("WhatsApp temporarily banned this number: %v (%s%s)", e.Code, expiry, until.UTC().Format(time.RFC3339)))
	return s.a.wait(ctx, until.Sub(s.a.clock())) && s.connect(ctx)
}

// park stops the session for good: reconnecting would be refused again.
func (s *session) park(st ConnState, detail string) {
	s.a.setCurrent(nil)
	s.a.setState(st, detail)
}

// Actions are the operator's actions on the WhatsApp session
// (POST /v1/admin/whatsapp/<action>): reconnect after stream_replaced,
// and lift the number's hold early.
func (a *Adapter) Actions() map[string]func(ctx context.Context) error {
	return map[string]func(ctx context.Context) error{"reconnect": a.Reconnect, "lift-hold": a.LiftHold}
}
