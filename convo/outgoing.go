package convo

import (
	"context"
	"errors"
	"log/slog"

	"github.com/botgw/botgw"
)

// Outgoing follows replies that belong to a larger job (a broadcast's items,
// tagged in Meta[botgw.MetaBroadcast]) as the engine delivers them. Both
// methods are called for every reply, in the chat's worker, and must return
// quickly; they are safe for concurrent use.
type Outgoing interface {
	// Watch returns a context derived from ctx for sending m, ended with
	// the cause botgw.ErrCancelled once m is no longer wanted (its
	// broadcast was cancelled, perhaps already), and a func to call after
	// the send. The engine then drops m unsent.
	Watch(ctx context.Context, m botgw.Outbound) (context.Context, context.CancelFunc)
	// Sent reports m's outcome: nil when the platform took it,
	// botgw.ErrCancelled when it was dropped unsent, or the permanent error
	// for which it was dropped.
	Sent(ctx context.Context, m botgw.Outbound, err error)
}

// sendWatched sends m unless the Outgoing hook says it is no longer wanted;
// cancelled reports that it was dropped for that reason.
func (e *Engine) sendWatched(ctx context.Context, ch botgw.Channel, m botgw.Outbound) (cancelled bool, err error) {
	if e.deps.Outgoing == nil {
		return false, e.send(ctx, ch, m)
	}
	sctx, done := e.deps.Outgoing.Watch(ctx, m)
	defer done()
	if sctx.Err() == nil {
		if err = e.send(sctx, ch, m); err == nil {
			return false, nil // taken, even if cancelled meanwhile
		}
	}
	if ctx.Err() == nil && errors.Is(context.Cause(sctx), botgw.ErrCancelled) {
		return true, nil
	}
	return false, err
}

// sent tells the Outgoing hook, if any, what became of m.
func (e *Engine) sent(ctx context.Context, m botgw.Outbound, err error) {
	if e.deps.Outgoing != nil {
		e.deps.Outgoing.Sent(ctx, m, err)
	}
}

// deliverInFlight sends one committed reply (deliverOne) on a context that
// keeps ctx's values but not its cancellation: the renewal cancels ctx
// when the worker's lease is found lost, and a send cut off then may have
// reached the platform all the same. Only the worker that sees the
// outcome can record it, before the chat's next holder, after its
// takeover grace, would send the reply again. The send ends early only
// when the engine stops; deliverAll starts no new send once ctx ends.
func (e *Engine) deliverInFlight(ctx context.Context, k botgw.ChatKey, m botgw.Outbound, log *slog.Logger) error {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	defer context.AfterFunc(e.ctx, cancel)()
	return e.deliverOne(sctx, k, m, log)
}
