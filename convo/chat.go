package convo

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/codec"
	"github.com/botgw/botgw/convo/lease"
	"github.com/botgw/botgw/convo/spans"
)

// next says what the chat loop does after one step.
type next int

const (
	finish next = iota // ask the store whether more work arrived
	again              // redo on fresh state (version conflict)
	stop               // give up the chat for now; the poller retries later
	// backoff leaves the lease to expire: the platform is down, so the
	// chat is retried after the lease TTL rather than at once.
	backoff
)

// holding is one worker's hold on a chat: what runChat carries from one
// turn to the next.
type holding struct {
	k     botgw.ChatKey
	log   *slog.Logger
	lease string          // the lease token; "" until taken
	next  *botgw.Snapshot // the next turn's snapshot, read by FinishNext
	pace  *botgw.SendPace // the chat's own send pace, kept by FinishNext
	clock lease.Clock     // when the lease was last confirmed
	st    known           // the state as the last snapshot or commit left it
	// unhold stops the renewer keeping the lease alive; nil until taken.
	unhold func()
	// lost cancels the worker's turn when the renewer finds the lease lost.
	lost context.CancelFunc
}

// stopRenewing takes h's lease from the renewer before it is released or
// handed to FinishNext: a renewal landing after that would read as a lost
// lease. The lease stays sure meanwhile, as it was confirmed within one
// renewal interval, a third of its TTL.
func (h *holding) stopRenewing() {
	if h.unhold != nil {
		h.unhold()
	}
}

// runChat holds chat k's lease and runs steps while the chat has pending
// input or undelivered replies. Another worker holding the lease (on this
// replica or another) makes it return at once: that worker sees our input.
func (e *Engine) runChat(k botgw.ChatKey, w *worker) {
	if h, ok := e.deps.Channels[k.Channel].(botgw.Holder); ok && !h.Holding() {
		return // another replica holds the session; its poller takes the chat
	}
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	h := &holding{k: k, log: e.log.With("chat", k), lost: cancel}
	defer func() {
		if h.lease != "" {
			h.stopRenewing()
			e.deps.Hooks.lease(k.Channel, -1)
		}
	}()
	for {
		snap, ok := e.take(ctx, h, w)
		if !ok {
			return
		}
		restore := spans.ProfileTurn(ctx, h.st.version == 0)
		outcome, delivered := e.step(ctx, k, snap, &h.st, h.pace, h.log)
		going := e.settle(ctx, h, w, outcome, delivered)
		restore()
		if !going {
			return
		}
	}
}

// take begins h's next turn, on the snapshot the last FinishNext read or
// else on the store's Begin (which takes the lease on the first turn). It
// returns false when the worker leaves the chat: another worker holds it,
// the lease was lost, or the store failed (logged).
func (e *Engine) take(ctx context.Context, h *holding, w *worker) (botgw.Snapshot, bool) {
	asked := time.Now()
	if h.next == nil {
		e.looking(w)
	}
	snap, err := e.begin(ctx, h)
	if err == nil && snap.Kept {
		if err = e.keep(ctx, h.k, &snap, &h.st, &h.clock); errors.Is(err, botgw.ErrLeaseLost) {
			h.log.Warn("lease lost between turns", "err", err)
			return snap, false
		}
	}
	if err == nil && h.lease == "" {
		snap, err = e.took(ctx, h, snap, asked)
	}
	if err != nil {
		if !errors.Is(err, botgw.ErrBusy) && ctx.Err() == nil {
			h.log.Warn("begin turn", "err", err)
		}
		h.stopRenewing()
		e.release(h.k, h.lease, h.log)
		return snap, false
	}
	if !snap.Kept {
		h.st = known{version: snap.Version, blob: snap.Blob, ttl: snap.TTL}
	}
	e.deps.Hooks.backlog(h.k.Channel, snap)
	return snap, true
}

// took starts h's hold on the lease snap took, asked when: it is renewed
// from now on, replies a dead holder left are given time to be recorded
// (takeOver), and the chat's own send pace is read.
func (e *Engine) took(ctx context.Context, h *holding, snap botgw.Snapshot, asked time.Time) (botgw.Snapshot, error) {
	h.lease = snap.Lease
	h.clock.Confirmed(asked)
	e.deps.Hooks.lease(h.k.Channel, 1)
	h.unhold = e.renewer.Hold(h.k, h.lease, &h.clock, h.lost, h.log)
	snap, err := e.takeOver(ctx, h.k, snap)
	// While this worker holds the lease only it sends to the chat, so the
	// chat's own pace goes with the hold and FinishNext stores it back.
	h.pace = botgw.NewSendPace(snap.Paced)
	return snap, err
}

// settle acts on a step's outcome and reports whether the worker goes on
// with the chat's next turn.
func (e *Engine) settle(ctx context.Context, h *holding, w *worker, outcome next, delivered []string) bool {
	if outcome != finish {
		// Only FinishNext removes delivered replies in passing; on every
		// other path they go now, or the next holder sends them again.
		e.delivered(h.k, h.lease, delivered, h.log)
	}
	switch outcome {
	case again:
		return true
	case stop:
		h.stopRenewing()
		e.release(h.k, h.lease, h.log)
		return false
	case backoff:
		if ctx.Err() != nil { // shutting down, not a platform outage
			h.stopRenewing()
			e.release(h.k, h.lease, h.log)
		}
		return false
	}
	e.looking(w) // FinishNext sees the input appended before it
	h.stopRenewing()
	more, err := e.finish(ctx, h, delivered)
	if err != nil {
		h.log.Warn("finish turn", "err", err)
		if !errors.Is(err, botgw.ErrLeaseLost) { // lease lost: FinishNext removed them anyway
			e.delivered(h.k, h.lease, delivered, h.log)
		}
		return false
	}
	if more { // the next turn runs under the same lease
		h.unhold = e.renewer.Hold(h.k, h.lease, &h.clock, h.lost, h.log)
	}
	return more
}

// known is a chat's state as its worker last saw it: the snapshot it
// began on, then what each of its commits wrote. A Kept snapshot goes on
// from it, so a busy chat's state is neither read from Redis nor decoded
// again between its turns.
type known struct {
	version int64
	blob    []byte
	ttl     time.Duration
	env     *codec.Envelope // blob decoded; nil when it is not (yet)
}

// committed records what a successful commit c wrote, env being its state.
func (st *known) committed(c botgw.Commit, env *codec.Envelope) {
	*st = known{version: c.Version + 1, blob: c.Blob, ttl: c.TTL, env: env}
	if c.Blob == nil { // the state was deleted
		*st = known{}
	}
}

// begin starts a turn on the snapshot the last FinishNext read, or else
// on the store's Begin.
func (e *Engine) begin(ctx context.Context, h *holding) (botgw.Snapshot, error) {
	if snap := h.next; snap != nil {
		h.next = nil
		return *snap, nil
	}
	return e.deps.Store.Begin(ctx, h.k, h.lease)
}

// finish ends a turn with the store's FinishNext, which keeps the chat's
// send pace and, when work remains, reads the next turn's snapshot into
// h.next for begin.
func (e *Engine) finish(ctx context.Context, h *holding, delivered []string) (bool, error) {
	at, taken := h.pace.Next()
	if !taken {
		at = time.Time{}
	}
	snap, more, err := e.deps.Store.FinishNext(ctx, h.k, h.lease, delivered, at)
	if more && err == nil {
		h.next = &snap
	}
	return more, err
}

// release gives the lease back, on a context that outlives shutdown.
func (e *Engine) release(k botgw.ChatKey, lease string, log *slog.Logger) {
	if lease == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(e.ctx), 2*time.Second)
	defer cancel()
	if err := e.deps.Store.Release(ctx, k, lease); err != nil {
		log.Warn("release lease", "err", err)
	}
}

// delivered records that the channel took replies ids by removing them
// from the outbox. They were sent, so the record must not be lost to a
// Redis outage: it is retried with backoff until Redis has it, on a
// context that outlives the chat (the lease may expire meanwhile; a worker
// taking over waits for the record, see takeOver) and ends only when the
// engine is cancelled for good. Only a crash before the record lands can
// make a reply go out twice.
func (e *Engine) delivered(k botgw.ChatKey, lease string, ids []string, log *slog.Logger) {
	if len(ids) == 0 {
		return
	}
	err := e.retryStore(func(ctx context.Context) error {
		return e.deps.Store.Delivered(ctx, k, lease, ids...)
	}, func(err error) {
		log.Warn("recording delivered replies; retrying until Redis takes it", "err", err)
	})
	if err != nil {
		log.Error("delivered replies not recorded: the engine stopped first; they may be sent again", "err", err)
	}
}

// step delivers leftover replies, runs a turn over the pending input,
// commits it and delivers its reply. It returns what to do next and the ids
// of the replies it delivered, which the caller removes from the outbox
// (with Finish, in the same round trip, on the common path).
func (e *Engine) step(ctx context.Context, k botgw.ChatKey, snap botgw.Snapshot, st *known, pace *botgw.SendPace, log *slog.Logger) (next, []string) {
	delivered, ok := e.deliverAll(ctx, k, snap.Outbox, nil, pace, log)
	if !ok {
		return backoff, delivered
	}
	if len(snap.Pending) == 0 {
		return finish, delivered
	}
	// The state decoded, when the worker has it from its last commit or
	// the throttle needs it. The turn changes it in place: from here it is
	// known again only once the commit took it.
	env := st.env
	st.env = nil
	if wait := e.throttle(snap, &env); wait > 0 {
		log.Info("turn rate limit reached; answering the chat's input together after a pause", "wait", wait)
		e.pause(ctx, wait)
		return again, delivered
	}
	if wait := e.debounce(k, snap.Pending); wait > 0 {
		e.pause(ctx, wait) // then look again: more input may have come
		return again, delivered
	}
	ctx, span := e.startSpan(ctx, spans.Turn, k.Channel)
	defer span.End()
	begin := time.Now()
	turnCtx, disarm := e.interruptible(ctx, k, snap.Pending)
	c, stats, env := e.turn(turnCtx, k, snap, env, log)
	if disarm() && ctx.Err() == nil {
		return e.interrupted(ctx, stats, snap, log), delivered
	}
	err := e.commit(ctx, k, c, &stats)
	stats.Duration = time.Since(begin)
	switch {
	case errors.Is(err, botgw.ErrConflict):
		log.Info("state changed during the turn; redoing it on fresh state")
		stats.Outcome = "conflict"
		e.observe(ctx, stats, snap.Pending, c.Outbox, log)
		return again, delivered
	case err != nil:
		if ctx.Err() == nil {
			log.Warn("commit turn", "err", err)
		}
		stats.Outcome = "commit_error"
		e.observe(ctx, stats, snap.Pending, c.Outbox, log)
		return stop, delivered
	}
	st.committed(c, env)
	e.observe(ctx, stats, snap.Pending, c.Outbox, log)
	delivered, ok = e.deliverAll(ctx, k, c.Outbox, delivered, pace, log)
	if !ok {
		return backoff, delivered
	}
	return finish, delivered
}

// commit stores the turn's state and reply atomically, timing it.
func (e *Engine) commit(ctx context.Context, k botgw.ChatKey, c botgw.Commit, stats *TurnStats) error {
	ctx, span := e.startSpan(ctx, spans.Commit, k.Channel)
	start := time.Now()
	err := e.deps.Store.Commit(ctx, k, c)
	stats.Commit = time.Since(start)
	failure := "commit failed"
	if errors.Is(err, botgw.ErrConflict) {
		failure = "version conflict"
	}
	spans.End(span, err, failure)
	return err
}

// deliverAll sends replies in order and appends the id of each the channel
// took (or that went to the dead letters) to done, for removal from the
// outbox. It retries a failing send with backoff for a while; if the
// platform stays down it stops there (ok false) and the rest stay in the
// outbox for a later attempt (delivery.go: until their budget is spent).
func (e *Engine) deliverAll(ctx context.Context, k botgw.ChatKey, out []botgw.Outbound, done []string, pace *botgw.SendPace, log *slog.Logger) (_ []string, ok bool) {
	for _, m := range out {
		if ctx.Err() != nil { // lease lost or shutting down: the next holder sends the rest
			return done, false
		}
		m.Pace = pace
		if err := e.deliverInFlight(ctx, k, m, log); err != nil {
			return done, false
		}
		done = append(done, m.ID)
	}
	return done, true
}

// send delivers one reply, in a "delivery" span that covers its retries.
func (e *Engine) send(ctx context.Context, ch botgw.Channel, m botgw.Outbound) error {
	ctx, span := e.startSpan(ctx, spans.Delivery, ch.Name())
	err := e.sendRetrying(ctx, ch, m)
	spans.End(span, err, "delivery failed")
	e.keepProgress(m, err)
	return err
}

// sendRetrying tries one delivery a few times with exponential backoff and
// jitter, waiting at least what the platform asked for. A channel that
// says it is waiting (PlatformError.Waiting) is not tried again here.
func (e *Engine) sendRetrying(ctx context.Context, ch botgw.Channel, m botgw.Outbound) error {
	const attempts = 4
	delay := 500 * time.Millisecond
	var err error
	for i := range attempts {
		start := time.Now()
		err = ch.Send(ctx, m)
		e.deps.Hooks.delivery(ch.Name(), time.Since(start), err)
		var pe *botgw.PlatformError
		if err == nil || (errors.As(err, &pe) && (pe.Permanent || pe.Waiting != "")) || i == attempts-1 {
			return err
		}
		wait := delay + rand.N(delay/2)
		if pe != nil && pe.RetryAfter > wait {
			wait = pe.RetryAfter
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		delay *= 2
	}
	return err
}
