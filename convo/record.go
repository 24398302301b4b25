package convo

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/botgw/botgw"
)

// Recording deliveries past a Redis outage.
//
// A reply goes out before Redis hears of it: commit, send, then remove it
// from the outbox. If Redis is away for the removal, the worker keeps the
// fact and retries (delivered, retryStore) until Redis has it. Its lease
// may expire meanwhile (Redis's clock runs on while it is down), and
// another worker may take the chat as soon as Redis is back and find the
// reply still in the outbox. That worker cannot tell a reply never sent
// (its holder died after the commit, or the platform was down) from one
// sent and not yet recorded, so it gives the last holder's record a grace
// to land before it sends anything (takeOver). The recorder retries well
// within that grace, so only a crash between the platform's answer and the
// record can send a reply twice.

// maxTakeoverGrace bounds how long a worker taking over a chat waits
// before resending its waiting replies. The grace adds to a dead holder's
// lease before its committed replies go out, so it is kept well inside the
// recovery bound (docs/adr/0001-recovery-bound.md).
const maxTakeoverGrace = 2 * time.Second

// takeoverGrace is Config.TakeoverGrace or its default: one lease TTL
// (three renewal periods), at most maxTakeoverGrace. The recorder retries
// at least every quarter of it, and every unreachableRetry while Redis
// cannot be reached (retryStore), so a record lands within one retry of
// Redis being back.
func (e *Engine) takeoverGrace() time.Duration {
	if e.cfg.TakeoverGrace > 0 {
		return e.cfg.TakeoverGrace
	}
	return min(3*e.cfg.LeaseRenew, maxTakeoverGrace)
}

// takeOver is called once a worker holds a chat's lease. If the outbox
// holds replies, it waits the takeover grace (renewing the lease) and
// reads the chat again, so a record the last holder was retrying lands
// first and its replies are not sent twice.
func (e *Engine) takeOver(ctx context.Context, k botgw.ChatKey, snap botgw.Snapshot) (botgw.Snapshot, error) {
	if len(snap.Outbox) == 0 {
		return snap, nil
	}
	e.pause(ctx, e.takeoverGrace())
	if err := ctx.Err(); err != nil {
		return snap, err
	}
	return e.deps.Store.Begin(ctx, k, snap.Lease)
}

// unreachableRetry is how soon retryStore tries again after an attempt
// that could not reach Redis at all (a dial error). Such an attempt costs
// Redis nothing, and go-redis fails it at once while its pool waits for a
// probe dial to succeed (one a second, after as many failed dials as the
// pool has connections), so only a short wait after that probe keeps the
// record well inside the takeover grace once Redis is back.
const unreachableRetry = 50 * time.Millisecond

// retryStore runs op until it succeeds, each attempt bounded by half the
// takeover grace, waiting between attempts as retryDelay says. failed
// hears of the first failure. It gives up only when the engine is
// cancelled for good (Close past its deadline) and returns the last error.
func (e *Engine) retryStore(op func(ctx context.Context) error, failed func(error)) error {
	attemptTimeout := max(e.takeoverGrace()/2, 100*time.Millisecond)
	ceiling := max(e.takeoverGrace()/4, 10*time.Millisecond)
	var delay time.Duration
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(e.ctx, attemptTimeout)
		err := op(ctx)
		cancel()
		if err == nil {
			return nil
		}
		if i == 0 {
			failed(err)
		}
		delay = retryDelay(delay, ceiling, err)
		t := time.NewTimer(delay)
		select {
		case <-e.ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// retryDelay is the wait after a failed attempt, given the wait before it
// (0 after the first): exponential from 50 ms up to ceiling, but never
// more than unreachableRetry after an attempt that could not reach Redis.
func retryDelay(prev, ceiling time.Duration, err error) time.Duration {
	d := min(max(2*prev, 50*time.Millisecond), ceiling)
	if op := (*net.OpError)(nil); errors.As(err, &op) && op.Op == "dial" {
		d = min(d, unreachableRetry)
	}
	return d
}

// keepProgress records in the outbox how many parts of a split reply the
// platform took before the send failed, so whichever replica retries it
// resumes after them. Like a delivery, the fact is kept until Redis has it.
func (e *Engine) keepProgress(m botgw.Outbound, err error) {
	var pe *botgw.PlatformError
	if !errors.As(err, &pe) || pe.Permanent || pe.Sent <= m.Sent {
		return
	}
	log := e.log.With("chat", m.Chat)
	err = e.retryStore(func(ctx context.Context) error {
		return e.deps.Store.Progress(ctx, m.Chat, m.ID, pe.Sent)
	}, func(err error) {
		log.Warn("recording the parts of a reply the platform took; retrying until Redis takes it", "err", err)
	})
	if err != nil {
		log.Error("parts of a reply taken but not recorded: the engine stopped first; they may be sent again", "err", err)
	}
}
