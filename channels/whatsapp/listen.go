package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
)

// outcome is how one hold of the session ended.
type outcome int

const (
	retry     outcome = iota // lease lost or ctx ended: start over
	loggedOut                // device unlinked: wait for a re-link
	parked                   // another client took the session, or this client is outdated: stay off
)

// Listen holds the WhatsApp connection while this replica holds the lease,
// and stands by while another one does. It blocks until ctx ends and
// returns nil: every WhatsApp failure is a state (see State, Health), not
// an error that should stop the gateway.
func (a *Adapter) Listen(ctx context.Context, deliver botgw.Deliver) error {
	a.mu.Lock()
	a.deliver = deliver
	a.mu.Unlock()
	defer a.setState(StateStopped, "")
	loggedOuts := 0
	for a.acquire(ctx) {
		cli, err := a.open(ctx) // after acquiring: the holder's view of the store is fresh
		if err != nil {
			a.release(ctx)
			a.waitForLink(ctx, err)
			continue
		}
		switch a.hold(ctx, cli) {
		case parked:
			<-ctx.Done()
		case loggedOut: // back off: a store whose device could not be deleted logs out again at once
			loggedOuts++
			a.wait(ctx, backoff(a.tm.relinkPoll, a.tm.backoffMax, loggedOuts))
		}
	}
	return nil
}

// waitForLink reports a store without a linked device and waits before
// looking again, so a re-link with `botgw whatsapp link` is picked up
// without a restart.
func (a *Adapter) waitForLink(ctx context.Context, err error) {
	a.state.update(func(s *State) { s.Linked, s.JID = false, "" })
	switch {
	case !errors.Is(err, errNotLinked):
		a.log.Error("whatsapp device store unreadable", "err", err)
		a.setState(StateNotLinked, err.Error())
	case a.state.get().State != StateLoggedOut:
		a.setState(StateNotLinked, err.Error())
	}
	sleep(ctx, a.tm.relinkPoll)
}

// hold runs one session on cli while the lease lasts, then disconnects and
// releases the lease. A parked session keeps the lease (so no other replica
// fights for the session) until ctx ends or the lease is lost.
func (a *Adapter) hold(ctx context.Context, cli client) outcome {
	a.log.Info("whatsapp session held by this replica", "owner", a.owner)
	sctx, cancel := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		a.renew(sctx, cancel)
	}()
	s := &session{a: a, cli: cli, evs: make(chan any, 64)}
	cli.AddEventHandlerWithSuccessStatus(a.handler(sctx, cli, s.evs))
	out := s.run(sctx)
	a.setCurrent(nil)
	s.disconnect()
	if out == parked {
		<-sctx.Done()
	}
	cancel()
	<-renewed
	a.release(ctx)
	return out
}

// session is one connection of a linked device while this replica holds
// the lease. Only its run goroutine touches it.
type session struct {
	a         *Adapter
	cli       client
	evs       chan any // connection events from the whatsmeow handler
	attempts  int      // failed connects since the last login
	takeovers int      // times another client took this session over
	stop      context.CancelFunc
}

func (s *session) run(ctx context.Context) outcome {
	if !s.connect(ctx) {
		return retry
	}
	for {
		select {
		case <-ctx.Done():
			return retry
		case ev := <-s.evs:
			if out, done := s.on(ctx, ev); done {
				return out
			}
		}
	}
}

// connect dials until a connection is up (true) or ctx ends (false),
// waiting an exponential backoff with jitter between attempts.
func (s *session) connect(ctx context.Context) bool {
	for {
		if s.attempts == 0 {
			s.a.setState(StateConnecting, "logging in to WhatsApp")
		}
		s.disconnect()
		stop, err := dial(ctx, s.cli, s.a.tm.connectTimeout)
		if err == nil {
			s.stop = stop
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		s.attempts++
		wait := backoff(s.a.tm.backoffMin, s.a.tm.backoffMax, s.attempts)
		s.a.log.Warn("whatsapp connect failed", "err", err, "attempt", s.attempts, "retry_in", wait)
		s.a.setState(StateDisconnected, fmt.Sprintf("cannot reach WhatsApp (%v); retrying", err))
		s.a.state.update(func(st *State) { st.Reconnects = s.attempts })
		if !sleep(ctx, wait) {
			return false
		}
	}
}

// reconnect waits a backoff after a lost connection, then connects again.
func (s *session) reconnect(ctx context.Context, why string) bool {
	s.a.setCurrent(nil)
	s.disconnect()
	s.attempts++
	wait := backoff(s.a.tm.backoffMin, s.a.tm.backoffMax, s.attempts)
	s.a.setState(StateDisconnected, why+"; reconnecting")
	s.a.state.update(func(st *State) { st.Reconnects = s.attempts })
	return sleep(ctx, wait) && s.connect(ctx)
}

func (s *session) disconnect() {
	s.cli.Disconnect()
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// on applies one connection event; done reports that the session ended.
func (s *session) on(ctx context.Context, ev any) (out outcome, done bool) {
	switch e := ev.(type) {
	case *events.Connected:
		s.connected(ctx)
		s.available(ctx)
	case *events.PushNameSetting: // the name arrived after connecting
		s.available(ctx)
	case *events.KeepAliveRestored:
		s.a.setState(StateConnected, "")
	case *events.Disconnected:
		if s.cli.IsConnected() {
			return retry, false // stale: already connected again
		}
		return retry, !s.reconnect(ctx, "connection to WhatsApp lost")
	case *events.KeepAliveTimeout:
		return retry, !s.keepAliveFailed(ctx, e)
	case *events.ConnectFailure:
		return retry, !s.reconnect(ctx, fmt.Sprintf("WhatsApp refused the connection (%d %s)", int(e.Reason), e.Message))
	case *events.CATRefreshError:
		return retry, !s.reconnect(ctx, fmt.Sprintf("WhatsApp token refresh failed (%v)", e.Error))
	case *events.TemporaryBan:
		return retry, !s.banned(ctx, e)
	case *events.LoggedOut:
		s.loggedOut(e)
		return loggedOut, true
	case *events.StreamReplaced:
		return retry, !s.replaced(ctx)
	case redeliver:
		return retry, !s.redeliver(ctx)
	case *events.ClientOutdated:
		s.park(StateOutdated, "WhatsApp rejected this client version (405 client outdated): update botgw to a release with a newer whatsmeow")
		return parked, true
	}
	return retry, false
}

func (s *session) connected(ctx context.Context) {
	s.attempts = 0
	s.a.setCurrent(s.cli)
	if len(s.a.operators) > 0 {
		go s.a.resolveOperators(ctx, s.cli)
	}
	pn, _ := s.cli.OwnIDs()
	s.a.state.update(func(st *State) {
		st.Linked, st.JID, st.Reconnects, st.BanExpires = true, pn.String(), 0, time.Time{}
	})
	s.a.setState(StateConnected, "")
}

// available marks the account online, as WhatsApp Web does once connected:
// only then does WhatsApp send delivery receipts as for an active client
// and show "typing…". WhatsApp refuses it until the account's push name
// has synced (it comes as a PushNameSetting event, which calls this again).
func (s *session) available(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, presenceTimeout)
	defer cancel()
	switch err := s.cli.SendPresence(ctx, types.PresenceAvailable); {
	case errors.Is(err, whatsmeow.ErrNoPushName):
		s.a.log.Debug("whatsapp presence waits for the account's push name")
	case err != nil:
		s.a.log.Warn("whatsapp presence not sent", "err", err)
	}
}

// redeliver waits until Redis answers again (a lease renewal goes
// through), then reconnects: WhatsApp redelivers unacknowledged messages
// only on a new connection. False means the session ended meanwhile.
func (s *session) redeliver(ctx context.Context) bool {
	for attempt := 1; ; attempt++ {
		ok, err := s.a.renewOnce(ctx, s.a.ttl/3)
		if err == nil && !ok {
			return false // the lease is gone: the renew loop ends the session
		}
		if err == nil {
			break
		}
		if !sleep(ctx, backoff(s.a.tm.backoffMin, s.a.tm.backoffMax, attempt)) {
			return false
		}
	}
	s.a.redeliverWanted.Store(false)
	s.a.counts.forcedReconnect.Add(1)
	s.a.log.Warn("whatsapp reconnecting so WhatsApp redelivers the messages that could not be stored")
	s.attempts = 0
	return s.reconnect(ctx, "reconnecting so WhatsApp redelivers messages that could not be stored")
}

// replaced handles another client taking the session (StreamReplaced).
// When this replica lost the lease, another replica connected: the session
// ends and the replica goes back to standby (false). When it still holds
// the lease, a foreign client (WhatsApp Web on a laptop, another botgw
// deployment on the same store) took it: park, holding the lease so other
// replicas do not fight for it, alert, and connect again after a back-off
// that grows with each replacement.
func (s *session) replaced(ctx context.Context) bool {
	s.a.setCurrent(nil)
	s.disconnect()
	if ok, err := s.a.renewOnce(ctx, s.a.ttl/3); err == nil && !ok {
		s.a.log.Warn("whatsapp session taken over by the replica that now holds the lease; standing by")
		return false
	}
	s.takeovers++
	s.a.counts.parked.Add(1)
	wait := backoff(s.a.tm.replacedMin, s.a.tm.replacedMax, s.takeovers)
	at := s.a.clock().Add(wait)
	s.a.state.update(func(st *State) { st.RetryAt = at })
	s.a.setState(StateReplaced, fmt.Sprintf("another client connected with this WhatsApp session (%d times so far), so this gateway disconnected; it connects again at %s. If WhatsApp Web or another botgw deployment uses this number, log it out (Settings → Linked devices)", s.takeovers, at.UTC().Format(time.RFC3339)))
	if !sleep(ctx, wait) {
		return false
	}
	s.a.state.update(func(st *State) { st.RetryAt = time.Time{} })
	s.attempts = 0
	return s.connect(ctx)
}

// keepAliveFailed reports failing pings, and reconnects once they have
// failed for keepAliveMax (whatsmeow's own forced reconnect is off).
func (s *session) keepAliveFailed(ctx context.Context, e *events.KeepAliveTimeout) bool {
	since := e.LastSuccess.Format(time.RFC3339)
	if time.Since(e.LastSuccess) < s.a.tm.keepAliveMax {
		s.a.setState(StateKeepAlive, fmt.Sprintf("WhatsApp keep-alive pings failing since %s (%d failures)", since, e.ErrorCount))
		return true
	}
	return s.reconnect(ctx, "WhatsApp keep-alive pings failing since "+since)
}

// banned waits out a temporary ban, holding the lease, then reconnects.
func (s *session) banned(ctx context.Context, e *events.TemporaryBan) bool {
	s.a.setCurrent(nil)
	s.disconnect()
	wait, expiry := e.Expire, ""
	if wait <= 0 {
		wait, expiry = s.a.tm.banRetry, "unknown expiry; retrying at "
	}
	until := time.Now().Add(wait)
	s.a.state.update(func(st *State) { st.BanExpires = until })
	s.a.setState(StateBanned, fmt.Sprintf("WhatsApp temporarily banned this number: %v (%s%s)", e.Code, expiry, until.Format(time.RFC3339)))
	return sleep(ctx, wait) && s.connect(ctx)
}

// loggedOut alerts the operator: the device was unlinked (from the phone
// or by WhatsApp) and whatsmeow deleted the session.
func (s *session) loggedOut(e *events.LoggedOut) {
	s.a.setCurrent(nil)
	s.a.state.update(func(st *State) { st.Linked, st.JID = false, "" })
	s.a.setState(StateLoggedOut, fmt.Sprintf("the WhatsApp device was logged out (%s): re-link it with `botgw whatsapp link -config FILE`", e.PermanentDisconnectDescription()))
}

// park stops the session for good: reconnecting would fight another client
// or be refused again.
func (s *session) park(st ConnState, detail string) {
	s.a.setCurrent(nil)
	s.a.setState(st, detail)
}
