package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
)

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
		wait := s.backoff()
		s.a.log.Warn("whatsapp connect failed", "err", err, "attempt", s.attempts, "retry_in", wait)
		s.a.setState(StateDisconnected, fmt.Sprintf("cannot reach WhatsApp (%v); retrying", err))
		if !s.a.wait(ctx, wait) {
			return false
		}
	}
}

// reconnect waits a backoff after a lost connection, then connects again.
func (s *session) reconnect(ctx context.Context, why string) bool {
	s.a.setCurrent(nil)
	s.disconnect()
	wait := s.backoff()
	s.a.log.Warn("whatsapp reconnecting", "why", why, "attempt", s.attempts, "retry_in", wait)
	s.a.setState(StateDisconnected, why+"; reconnecting")
	return s.a.wait(ctx, wait) && s.connect(ctx)
}

// backoff counts one more connection attempt and returns the wait before
// it: doubled per attempt since the connection was last healthy (up for
// healthyAfter), so a server that takes the login and then drops the
// stream is redialled ever more slowly, not every second. It also counts
// the reconnect and raises the alarm when they come too often.
func (s *session) backoff() time.Duration {
	now := s.a.clock()
	if !s.up.IsZero() && now.Sub(s.up) >= s.a.tm.healthyAfter {
		s.attempts = 0
	}
	s.up = time.Time{}
	s.attempts++
	s.a.counts.reconnects.Add(1)
	s.a.state.update(func(st *State) { st.Reconnects = s.attempts })
	s.alarm(now)
	return backoff(s.a.tm.backoffMin, s.a.tm.backoffMax, s.attempts)
}

// alarm logs an error (once per stormWindow) and counts it when
// stormCount connection attempts fell within stormWindow: WhatsApp reads
// a number that reconnects all the time as a misbehaving client.
func (s *session) alarm(now time.Time) {
	keep := s.recent[:0]
	for _, t := range s.recent {
		if now.Sub(t) < s.a.tm.stormWindow {
			keep = append(keep, t)
		}
	}
	s.recent = append(keep, now)
	if len(s.recent) < s.a.tm.stormCount || (!s.alarmed.IsZero() && now.Sub(s.alarmed) < s.a.tm.stormWindow) {
		return
	}
	s.alarmed = now
	s.a.counts.storms.Add(1)
	s.a.log.Error("whatsapp reconnecting too often: check the network, the proxy and the store (see docs/whatsapp.md)",
		"attempts", len(s.recent), "within", s.a.tm.stormWindow)
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
		if rejected(e.Reason) {
			s.park(StateRejected, fmt.Sprintf(rejectedDetail, int(e.Reason), e.Reason))
			return parked, true
		}
		return retry, !s.reconnect(ctx, fmt.Sprintf("WhatsApp refused the connection (%d %s)", int(e.Reason), e.Message))
	case *events.CATRefreshError:
		return retry, !s.reconnect(ctx, fmt.Sprintf("WhatsApp token refresh failed (%v)", e.Error))
	case *events.TemporaryBan:
		return retry, !s.banned(ctx, e)
	case *events.LoggedOut:
		s.loggedOut(ctx, e)
		return loggedOut, true
	case *events.StreamReplaced:
		return retry, !s.replaced(ctx)
	case silentDeath:
		s.a.counts.silentDeaths.Add(1)
		return retry, !s.reconnect(ctx, "WhatsApp connection gone without notice (no socket or no login)")
	case redeliver:
		return retry, !s.redeliver(ctx)
	case *events.ClientOutdated:
		s.park(StateOutdated, "WhatsApp rejected this client version (405 client outdated): update botgw to a release with a newer whatsmeow")
		return parked, true
	}
	return retry, false
}

// connected notes a login. The back-off is not reset here: only a
// connection that stays up for healthyAfter resets it (backoff).
func (s *session) connected(ctx context.Context) {
	s.up = s.a.clock()
	s.a.logins.Add(1)
	s.a.setCurrent(s.cli)
	if len(s.a.operators) > 0 {
		go s.a.resolveOperators(ctx, s.cli)
	}
	pn, _ := s.cli.OwnIDs()
	s.a.state.update(func(st *State) {
		st.Linked, st.JID, st.BanExpires = true, pn.String(), time.Time{}
	})
	s.a.setState(StateConnected, "")
	go s.a.armStoredBacklog(context.WithoutCancel(ctx))
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
