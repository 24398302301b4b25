package convo

import (
	"context"

	"github.com/botgw/botgw"
)

// Outgoing follows replies that belong to a larger job (a broadcast's items,
// tagged in Meta[botgw.MetaBroadcast]) as the engine delivers them. Both
// methods are called for every reply, in the chat's worker, and must return
// quickly; they are safe for concurrent use.
type Outgoing interface {
	// Skip reports whether m is no longer wanted (its broadcast was
	// cancelled): the engine drops it from the outbox unsent.
	Skip(ctx context.Context, m botgw.Outbound) bool
	// Sent reports m's outcome: nil when the platform took it, or the
	// permanent error for which it was dropped.
	Sent(ctx context.Context, m botgw.Outbound, err error)
}

// skip asks the Outgoing hook, if any, whether to drop m unsent.
func (e *Engine) skip(ctx context.Context, m botgw.Outbound) bool {
	return e.deps.Outgoing != nil && e.deps.Outgoing.Skip(ctx, m)
}

// sent tells the Outgoing hook, if any, what became of m.
func (e *Engine) sent(ctx context.Context, m botgw.Outbound, err error) {
	if e.deps.Outgoing != nil {
		e.deps.Outgoing.Sent(ctx, m, err)
	}
}
