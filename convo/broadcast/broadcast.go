// Package broadcast fans one message or event out to many chats through
// each chat's normal pending path (botgw.Deliver: dedupe, order, the
// operator's pause, the outbox) and follows every item to its outcome.
//
// A broadcast is stored in Redis before it is accepted (state.Broadcasts).
// Every replica runs a Runner; in each step one replica leases the
// broadcast's cursor, queues the next items into their chats (at most Window
// items in flight, so a cancel stops quickly and the engine is never
// flooded), moves the cursor and gives the lease back, so the work spreads
// over the replicas and a replica that dies loses nothing: the next holder
// queues again from the cursor, and the chats' dedupe (the item id is the
// same) stores nothing twice.
//
// An item is done when the platform took its message (message form, or an
// event with respond: the model's reply), or when the event is durable in
// the chat's pending input (an event without respond: nothing to send). It
// failed when the platform refused it for good, and is cancelled when the
// broadcast was cancelled before it was sent.
package broadcast

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/botgw/botgw"
)

// Defaults of a Runner.
const (
	DefaultWindow = 200
	DefaultPoll   = 250 * time.Millisecond
	leaseTTL      = 15 * time.Second
	stateCacheTTL = 200 * time.Millisecond
	watchEvery    = 200 * time.Millisecond
)

// Hooks observe items for metrics; both are optional and must be fast.
type Hooks struct {
	Queued  func(n int)          // items queued into their chats
	Settled func(outcome string) // done, failed or cancelled
}

// Runner queues broadcast items and follows their delivery. It implements
// convo.Outgoing. Safe for concurrent use.
type Runner struct {
	Store   Store
	Deliver botgw.Deliver
	Hooks   Hooks
	Log     *slog.Logger
	Window  int           // items in flight per broadcast; DefaultWindow if 0
	Poll    time.Duration // how often to look for work; DefaultPoll if 0

	token string
	kick  chan struct{}
	once  sync.Once

	mu     sync.Mutex
	states map[string]cachedState // broadcast id → state, for Skip
}

type cachedState struct {
	state string
	at    time.Time
}

func (r *Runner) init() {
	r.once.Do(func() {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		r.token = hex.EncodeToString(b)
		r.kick = make(chan struct{}, 1)
		r.states = map[string]cachedState{}
		if r.Log == nil {
			r.Log = slog.New(slog.DiscardHandler)
		}
		if r.Window <= 0 {
			r.Window = DefaultWindow
		}
		if r.Poll <= 0 {
			r.Poll = DefaultPoll
		}
	})
}

// Kick makes the runner look for work now (a broadcast was just created).
func (r *Runner) Kick() {
	r.init()
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Run serves running broadcasts until ctx ends.
func (r *Runner) Run(ctx context.Context) error {
	r.init()
	t := time.NewTicker(r.Poll)
	defer t.Stop()
	for {
		ids, err := r.Store.Running(ctx)
		if err != nil && ctx.Err() == nil {
			r.Log.Warn("list broadcasts", "err", err)
		}
		for _, id := range ids {
			if err := r.step(ctx, id); err != nil && ctx.Err() == nil {
				r.Log.Warn("broadcast step", "broadcast", id, "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-r.kick:
		}
	}
}

// step leases id's cursor, queues the next items within the window, or
// marks the broadcast finished once every item settled.
func (r *Runner) step(ctx context.Context, id string) error {
	ok, err := r.Store.Lease(ctx, id, r.token, leaseTTL)
	if err != nil || !ok {
		return err
	}
	defer func() {
		if err := r.Store.Unlease(context.WithoutCancel(ctx), id, r.token); err != nil {
			r.Log.Warn("release broadcast", "broadcast", id, "err", err)
		}
	}()
	info, err := r.Store.Get(ctx, id)
	if err != nil || info.State != botgw.BroadcastRunning {
		return err
	}
	settled := info.Done + info.Failed + info.Cancelled
	if info.Cursor >= info.Total && settled >= info.Total {
		r.Log.Info("broadcast finished", "broadcast", id, "done", info.Done, "failed", info.Failed)
		return r.Store.Finish(ctx, id)
	}
	n := min(r.Window-(info.Cursor-settled), info.Total-info.Cursor)
	if n <= 0 {
		return nil
	}
	return r.queue(ctx, info, n)
}

// queue delivers up to n items from the cursor and moves the cursor past
// the ones stored.
func (r *Runner) queue(ctx context.Context, info botgw.BroadcastInfo, n int) error {
	chats, err := r.Store.Chats(ctx, info.ID, info.Cursor, n)
	if err != nil {
		return err
	}
	queued := 0
	for i, c := range chats {
		index := info.Cursor + i
		if err := r.queueOne(ctx, info, index, c); err != nil {
			r.Log.Warn("broadcast item not stored; retrying later", "broadcast", info.ID, "err", err)
			break
		}
		queued++
	}
	if queued == 0 {
		return nil
	}
	if r.Hooks.Queued != nil {
		r.Hooks.Queued(queued)
	}
	return r.Store.Advance(ctx, info.ID, r.token, info.Cursor+queued)
}

// queueOne stores one item in its chat's pending input.
func (r *Runner) queueOne(ctx context.Context, info botgw.BroadcastInfo, index int, chat string) error {
	k, err := botgw.ParseChatKey(chat)
	if err != nil { // checked when the broadcast was posted; cannot be sent
		return r.settle(ctx, info.ID, index, "failed")
	}
	in := Item(info, index, k)
	if err := r.Deliver(ctx, in); err != nil {
		return fmt.Errorf("queue item %d: %w", index, err)
	}
	if in.Kind == botgw.KindEvent && !in.Event.Respond { // nothing to send: done once durable
		return r.settle(ctx, info.ID, index, "done")
	}
	return nil
}

// Item is the inbound of item index of a broadcast for chat k. Its id is
// the same on every attempt, so the chat stores it once.
func Item(info botgw.BroadcastInfo, index int, k botgw.ChatKey) botgw.Inbound {
	in := botgw.Inbound{Chat: k, ID: "bc:" + info.ID, At: info.StartedAt,
		Meta: map[string]string{botgw.MetaBroadcast: info.ID + "#" + strconv.Itoa(index)}}
	if info.Message != "" {
		in.Kind, in.Text, in.Offer = botgw.KindSay, info.Message, info.Event.Offer
		return in
	}
	ev := info.Event
	ev.ID = "bc:" + info.ID
	in.Kind, in.Event = botgw.KindEvent, &ev
	return in
}

func (r *Runner) settle(ctx context.Context, id string, index int, outcome string) error {
	if err := r.Store.Mark(ctx, id, index, outcome); err != nil {
		return err
	}
	if r.Hooks.Settled != nil {
		r.Hooks.Settled(outcome)
	}
	return nil
}

// tags reads the broadcast items a reply carries.
func tags(m botgw.Outbound) (ids []string, indexes []int) {
	for t := range strings.FieldsSeq(m.Meta[botgw.MetaBroadcast]) {
		id, idx, ok := strings.Cut(t, "#")
		n, err := strconv.Atoi(idx)
		if ok && err == nil {
			ids, indexes = append(ids, id), append(indexes, n)
		}
	}
	return ids, indexes
}

// Sent records the outcome of a reply that carries broadcast items.
func (r *Runner) Sent(ctx context.Context, m botgw.Outbound, err error) {
	outcome := "done"
	switch {
	case errors.Is(err, botgw.ErrCancelled):
		outcome = "cancelled"
	case err != nil:
		outcome = "failed"
	}
	ids, idx := tags(m)
	for i := range ids {
		if e := r.settle(ctx, ids[i], idx[i], outcome); e != nil {
			r.Log.Warn("record broadcast item", "broadcast", ids[i], "err", e)
		}
	}
}

// Watch returns a context for sending m that ends with botgw.ErrCancelled
// as soon as every broadcast m belongs to is cancelled (checked now and
// every watchEvery while the send waits for its slot).
func (r *Runner) Watch(ctx context.Context, m botgw.Outbound) (context.Context, context.CancelFunc) {
	ids, _ := tags(m)
	if len(ids) == 0 {
		return ctx, func() {}
	}
	sctx, cancel := context.WithCancelCause(ctx)
	if r.cancelled(ctx, ids) {
		cancel(botgw.ErrCancelled)
		return sctx, func() {}
	}
	go func() {
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-t.C:
				if r.cancelled(sctx, ids) {
					cancel(botgw.ErrCancelled)
					return
				}
			}
		}
	}()
	return sctx, func() { cancel(context.Canceled) }
}

// cancelled reports whether every broadcast of ids was cancelled.
func (r *Runner) cancelled(ctx context.Context, ids []string) bool {
	for _, id := range ids {
		if r.stateOf(ctx, id) != botgw.BroadcastCancelled {
			return false
		}
	}
	return true
}

// stateOf is a broadcast's state, read at most every stateCacheTTL.
func (r *Runner) stateOf(ctx context.Context, id string) string {
	r.init()
	r.mu.Lock()
	c, ok := r.states[id]
	r.mu.Unlock()
	if ok && time.Since(c.at) < stateCacheTTL {
		return c.state
	}
	info, err := r.Store.Get(ctx, id)
	if err != nil {
		if !errors.Is(err, botgw.ErrNotFound) {
			r.Log.Warn("read broadcast state", "broadcast", id, "err", err)
		}
		return c.state
	}
	r.mu.Lock()
	if len(r.states) > 1000 {
		clear(r.states)
	}
	r.states[id] = cachedState{state: info.State, at: time.Now()}
	r.mu.Unlock()
	return info.State
}
