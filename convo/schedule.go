package convo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/botgw/botgw"
)

// How a turn treats input that arrives while the model is answering.
const (
	// OnNewInputQueue answers it in the next turn (the default).
	OnNewInputQueue = "queue"
	// OnNewInputInterrupt cancels the model call and reruns the turn with
	// all pending input; nothing was committed or sent, so nothing is lost
	// or sent twice. A turn whose reply is committed is never interrupted.
	OnNewInputInterrupt = "interrupt"
)

// DefaultMaxWait bounds a debounce when TurnsConfig leaves MaxWait zero.
const DefaultMaxWait = 5 * time.Second

// TurnsConfig shapes when a chat's turn starts, the way people type.
type TurnsConfig struct {
	// Debounce starts a turn only once the chat has been quiet this long,
	// so a burst of messages becomes one turn; 0 starts at once.
	Debounce time.Duration `yaml:"debounce"`
	// MaxWait: a debounce never delays a turn longer than this after its
	// first message; default 5s.
	MaxWait time.Duration `yaml:"max_wait"`
	// OnNewInput is OnNewInputQueue (empty: the default) or OnNewInputInterrupt.
	OnNewInput string `yaml:"on_new_input"`
}

// Validate names each bad field under key ("turns", "channels.whatsapp.turns").
func (c TurnsConfig) Validate(key string) error {
	var errs []error
	if c.Debounce < 0 {
		errs = append(errs, fmt.Errorf("%s.debounce: must not be negative (0 is off)", key))
	}
	if c.MaxWait < 0 {
		errs = append(errs, fmt.Errorf("%s.max_wait: must not be negative", key))
	}
	if c.OnNewInput != "" && c.OnNewInput != OnNewInputQueue && c.OnNewInput != OnNewInputInterrupt {
		errs = append(errs, fmt.Errorf("%s.on_new_input: want queue or interrupt, got %q", key, c.OnNewInput))
	}
	return errors.Join(errs...)
}

// Merge returns c with the fields o sets (non-zero) taking precedence: a
// channel's override over the gateway-wide section.
func (c TurnsConfig) Merge(o TurnsConfig) TurnsConfig {
	if o.Debounce != 0 {
		c.Debounce = o.Debounce
	}
	if o.MaxWait != 0 {
		c.MaxWait = o.MaxWait
	}
	if o.OnNewInput != "" {
		c.OnNewInput = o.OnNewInput
	}
	return c
}

// turnsFor is the turn shaping of a channel's chats.
func (e *Engine) turnsFor(channel string) TurnsConfig {
	t := e.cfg.Turns
	if o, ok := e.cfg.ChannelTurns[channel]; ok {
		t = t.Merge(o)
	}
	if t.MaxWait <= 0 {
		t.MaxWait = DefaultMaxWait
	}
	return t
}

// debounce is how long chat k's turn should still wait for the chat to go
// quiet: until Debounce after its latest input (as stamped in the store, or
// as seen by this replica, whichever is later), but never past MaxWait
// after its first pending input.
func (e *Engine) debounce(k botgw.ChatKey, pending []botgw.Inbound) time.Duration {
	t := e.turnsFor(k.Channel)
	if t.Debounce <= 0 || len(pending) == 0 {
		return 0
	}
	first, last := pending[0].At, pending[0].At
	for _, in := range pending {
		first, last = earlier(first, in.At), later(last, in.At)
	}
	e.mu.Lock()
	if w := e.workers[k]; w != nil {
		last = later(last, w.lastInput)
	}
	e.mu.Unlock()
	until := last.Add(t.Debounce)
	if first.IsZero() {
		first = last
	}
	until = earlier(until, first.Add(t.MaxWait))
	return until.Sub(e.now())
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// errInterrupted is the cause of a turn cancelled by new input.
var errInterrupted = errors.New("new input arrived during the turn")

// interruptible arms chat k's running turn to be cancelled by new user
// text (OnNewInputInterrupt), other than the input the turn already holds.
// The returned disarm must be called before the turn commits; it reports
// whether the turn was interrupted, in which case nothing may be committed.
func (e *Engine) interruptible(ctx context.Context, k botgw.ChatKey, pending []botgw.Inbound) (context.Context, func() bool) {
	if e.turnsFor(k.Channel).OnNewInput != OnNewInputInterrupt {
		return ctx, func() bool { return false }
	}
	ctx, cancel := context.WithCancelCause(ctx)
	held := make([]string, 0, len(pending))
	for _, in := range pending {
		held = append(held, in.ID)
	}
	e.mu.Lock()
	w := e.workers[k]
	if w != nil {
		w.interrupt, w.held = cancel, held
	}
	e.mu.Unlock()
	return ctx, func() bool {
		e.mu.Lock()
		if w != nil {
			w.interrupt, w.held = nil, nil
		}
		e.mu.Unlock()
		interrupted := errors.Is(context.Cause(ctx), errInterrupted)
		cancel(nil)
		return interrupted
	}
}

// noteInput records that input for chat k reached this replica: it resets
// the chat's debounce and interrupts its armed turn if the input is user
// text the turn does not hold. Called with e.mu held.
func (w *worker) noteInput(in botgw.Inbound, now time.Time) {
	w.lastInput = now
	if w.interrupt == nil || in.Kind != botgw.KindText || in.Backlog || slices.Contains(w.held, in.ID) {
		return
	}
	w.interrupt(errInterrupted)
	w.interrupt, w.held = nil, nil
}

// interrupted records a turn cancelled by new input: nothing is committed,
// and the chat's next step reruns it over all pending input.
func (e *Engine) interrupted(ctx context.Context, stats TurnStats, snap botgw.Snapshot, log *slog.Logger) next {
	log.Info("new input during the turn; rerunning it with all pending input")
	stats.Outcome = "interrupted"
	e.observe(ctx, stats, snap.Pending, nil, log)
	return again
}
