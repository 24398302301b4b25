package whatsapp

import (
	"context"
	"errors"
	"time"

	"go.mau.fi/whatsmeow/types"

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
		logins := a.logins.Load()
		out := a.hold(ctx, cli)
		if a.logins.Load() != logins {
			loggedOuts = 0 // a login since: the device was fine again
		}
		switch out {
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
	a.state.update(func(s *State) {
		if s.State != StateLocked { // a banned number keeps its JID: its hold is shown by it
			s.JID = ""
		}
		s.Linked = false
	})
	switch {
	case !errors.Is(err, errNotLinked):
		a.log.Error("whatsapp device store unreadable", "err", err)
		a.setState(StateNotLinked, err.Error())
	case a.state.get().State != StateLoggedOut && a.state.get().State != StateLocked:
		a.setState(StateNotLinked, err.Error())
	}
	a.wait(ctx, a.tm.relinkPoll)
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
	s := &session{a: a, cli: cli, evs: make(chan any, 64), device: cli.DeviceID()}
	cli.AnswerRetriesWith(a.messageForRetry)
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
	evs       chan any  // connection events from the whatsmeow handler
	attempts  int       // connects since the connection was last healthy: the back-off's exponent
	up        time.Time // when the current connection logged in (zero: not logged in)
	recent    []time.Time
	alarmed   time.Time // when the reconnect alarm was last raised
	takeovers int       // times another client took this session over
	device    types.JID // the linked device, read before connecting
	stop      context.CancelFunc
}

func (s *session) run(ctx context.Context) outcome {
	if !s.connect(ctx) {
		return retry
	}
	watch := time.NewTicker(s.a.tm.watchdog)
	defer watch.Stop()
	for {
		ev := any(nil)
		select {
		case <-ctx.Done():
			return retry
		case ev = <-s.evs:
		case <-watch.C:
			ev = s.watchdog()
		}
		if ev == nil {
			continue
		}
		if out, done := s.on(ctx, ev); done {
			return out
		}
	}
}

// silentDeath is the watchdog's finding: the session counts as connected
// but whatsmeow has no socket or no login, and said nothing (a failed
// reconnect after stream error 515 only logs).
type silentDeath struct{}

// watchdog looks at a connected session: when whatsmeow is no longer
// connected and logged in, it returns silentDeath for run to handle.
func (s *session) watchdog() any {
	if s.a.current() == nil || (s.cli.IsConnected() && s.cli.IsLoggedIn()) {
		return nil
	}
	return silentDeath{}
}
