// Package convo is the conversation engine. It takes inbound messages from
// the channels, makes them durable in the store, and runs turns: one chat at
// a time and in order, many chats in parallel. A turn takes all pending input
// of a chat (a burst of messages is one turn), handles commands and events
// without the LLM, calls the provider with the compacted history, commits the
// new state and the reply atomically, then delivers the reply from the
// outbox. The state blob is opaque outside this package (codec.go).
package convo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/convo/lease"
	"github.com/botgw/botgw/convo/limits"
	"github.com/botgw/botgw/convo/spans"
)

// Config holds the engine's knobs; zero values take the defaults.
type Config struct {
	SystemPrompt      string
	StateTTL          time.Duration       // sliding expiry of a conversation; default 24h
	TurnTimeout       time.Duration       // deadline of one turn's provider work; default 2m
	PollInterval      time.Duration       // how often to look for orphaned work; default 1s
	LeaseRenew        time.Duration       // how often a running turn renews its lease; default a third of the store's lease TTL
	MaxToolCalls      int                 // per turn; default 5
	Apology           string              // reply when the provider failed
	UnsupportedNotice string              // reply to media the gateway cannot read
	Operators         map[string][]string // channel → platform user ids allowed operator commands
	Limits            limits.Config       // per-chat token and turn-rate limits; zero: off
	// AcceptProviders are the provider ids whose stored state this engine
	// continues (the provider and its fallbacks); state locked to any other
	// is dropped. Empty: the provider's own id.
	AcceptProviders []string
	// TakeoverTTL is how long an operator's /pause without a duration
	// lasts; default 30m.
	TakeoverTTL time.Duration
	// DeliveryAttempts is how many delivery rounds (each a few quick
	// retries) a reply gets before it goes to the dead letters; default 5.
	DeliveryAttempts int
	// LogContent adds the message text and the reply to the per-turn log
	// line. Off by default: logs carry no conversation content.
	LogContent bool
	// Turns shapes when turns start (debounce) and what new input does to
	// a running turn; ChannelTurns overrides it per channel name.
	Turns        TurnsConfig
	ChannelTurns map[string]TurnsConfig
	// TakeoverGrace is how long a worker that takes over a chat with
	// replies waiting lets the last holder record their delivery before it
	// resends them (record.go); default 3 × LeaseRenew, at most 2s.
	TakeoverGrace time.Duration
	// NoOfferChoices turns the built-in tool offer_choices off
	// (tools_builtin.offer_choices: false).
	NoOfferChoices bool
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.StateTTL, 24*time.Hour)
	def(&c.TurnTimeout, 2*time.Minute)
	def(&c.PollInterval, time.Second)
	if c.MaxToolCalls <= 0 {
		c.MaxToolCalls = 5
	}
	def(&c.TakeoverTTL, 30*time.Minute)
	if c.DeliveryAttempts <= 0 {
		c.DeliveryAttempts = 5
	}
	if c.Apology == "" {
		c.Apology = "Sorry, I couldn't answer just now. Please try again in a moment."
	}
	c.Limits = c.Limits.WithDefaults()
	if c.UnsupportedNotice == "" {
		c.UnsupportedNotice = "Sorry, I can only read text for now."
	}
	return c
}

// Tools runs the tools the model may call. Optional.
type Tools interface {
	Specs() []botgw.ToolSpec
	// Call runs one call for the chat and user and returns its result; an
	// error is reported to the model, never to the user.
	Call(ctx context.Context, chat botgw.ChatKey, user string, call botgw.ToolCall) (string, error)
}

// Deps are the engine's collaborators.
type Deps struct {
	Store     botgw.Store
	Provider  botgw.Provider
	Compactor botgw.Compactor // nil: history is sent whole
	// Count counts a history's tokens for the compaction record: the sum
	// of its messages' counts, so parts may be counted apart; nil: a
	// characters/4 estimate.
	Count    func([]botgw.Message) int
	Channels map[string]botgw.Channel
	// Media reads the photos and recordings players send; nil: they get
	// UnsupportedNotice and are kept as their marker and caption.
	Media MediaReader
	Tools Tools // nil: no tools
	Log   *slog.Logger
	Audit audit.Log // nil: operator actions are only logged
	Hooks Hooks     // optional observation points (metrics)
	// Tracer starts the spans of each turn (tracing.go); nil: no tracing.
	Tracer trace.Tracer
	// Outgoing follows broadcast replies as they are delivered; nil: none.
	Outgoing Outgoing
	// DeadLetters keeps replies and input that could not be delivered or
	// processed; nil: the Store, when it implements botgw.DeadLetters.
	DeadLetters botgw.DeadLetters
	// Clock is the time debounce and the turn rate limit read and wait
	// on; nil: the machine's clock.
	Clock Clock
}

// Engine schedules and runs turns. Create it with New, start it with Run.
//
// A chat's turns run on its own goroutine, one at a time and in order, and
// many chats run at once: a turn waiting on the model holds no slot, only
// its goroutine. The provider bounds the calls in flight and serves them
// first come, first served (providers/limit), so a chat that writes again
// goes behind the chats already waiting.
type Engine struct {
	cfg   Config
	deps  Deps
	log   *slog.Logger
	clock Clock

	commands []command
	renewer  lease.Renewer // keeps the leases of the chats running here alive

	mu      sync.Mutex
	workers map[botgw.ChatKey]*worker
	closing bool
	wg      sync.WaitGroup

	ctx    context.Context // turns run on this, never on a request's context
	cancel context.CancelFunc
	done   chan struct{}
}

// worker is the goroutine that runs one chat's turns while it has work.
// Its fields are guarded by Engine.mu.
type worker struct {
	// dirty: input arrived after the worker last read the chat's pending
	// input (see looking), so it runs the chat once more before it ends.
	dirty     bool
	lastInput time.Time               // when input for the chat last reached this replica
	interrupt context.CancelCauseFunc // cancels the running turn (OnNewInputInterrupt); nil when not armed
	held      []string                // ids of the input the armed turn holds
}

// New builds an engine. It does no I/O.
func New(cfg Config, deps Deps) (*Engine, error) {
	if deps.Store == nil || deps.Provider == nil {
		return nil, errors.New("convo: store and provider are required")
	}
	if deps.Log == nil {
		deps.Log = slog.New(slog.DiscardHandler)
	}
	if deps.Tracer == nil {
		deps.Tracer = spans.Noop
	}
	if deps.Clock == nil {
		deps.Clock = realClock{}
	}
	cfg = cfg.withDefaults()
	if cfg.LeaseRenew <= 0 {
		cfg.LeaseRenew = max(deps.Store.LeaseTTL()/3, time.Millisecond)
	}
	if deps.Count == nil {
		deps.Count = roughTokens
	}
	if len(cfg.AcceptProviders) == 0 {
		cfg.AcceptProviders = []string{deps.Provider.ID()}
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine{
		cfg: cfg, deps: deps, log: deps.Log, clock: deps.Clock, commands: commandTable(),
		workers: make(map[botgw.ChatKey]*worker),
		ctx:     ctx, cancel: cancel, done: make(chan struct{}),
	}
	e.renewer = lease.Renewer{Store: deps.Store, Every: cfg.LeaseRenew, Ctx: ctx}
	return e, nil
}

// Handle is the channels' botgw.Deliver: it makes in durable and schedules
// its chat. It returns nil for a duplicate, nil for input that can never be
// stored (counted as ignored and logged: a retry could not help, and an
// error would make the platform redeliver it forever), and an error when
// the input could not be stored now (the platform should retry). Safe for
// concurrent use.
func (e *Engine) Handle(ctx context.Context, in botgw.Inbound) error {
	in = e.normalize(in)
	in = e.cfg.Limits.Cut(in)
	err := e.deps.Store.Append(ctx, in)
	e.deps.Hooks.inbound(in, err)
	switch {
	case errors.Is(err, botgw.ErrDuplicate):
		return nil
	case errors.Is(err, botgw.ErrInvalidInput):
		e.log.Warn("input that can never be stored: acknowledged and ignored",
			"channel", in.Chat.Channel, "chat", in.Chat, "reason", invalidReason(in))
		if err := e.DeadLetterInput(ctx, in, invalidReason(in)); err != nil {
			e.log.Warn("keep unstorable input as a dead letter", "err", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("accept %s: %w", in.Chat, err)
	}
	e.kick(in.Chat, &in)
	return nil
}

// kick makes sure a worker will look at chat k soon; in is the input that
// prompted it, nil for work found by the poller.
func (e *Engine) kick(k botgw.ChatKey, in *botgw.Inbound) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closing {
		return
	}
	w, ok := e.workers[k]
	if !ok {
		w = &worker{}
	}
	if in != nil {
		w.noteInput(*in, e.now())
	}
	if ok {
		w.dirty = true
		return
	}
	e.workers[k] = w
	e.wg.Add(1)
	go e.work(k, w)
}

// work runs chat k until it has no more work, then reaps itself.
func (e *Engine) work(k botgw.ChatKey, w *worker) {
	defer e.wg.Done()
	for {
		if e.ctx.Err() != nil {
			e.reap(k)
			return
		}
		e.runChat(k, w)
		e.mu.Lock()
		if !w.dirty || e.closing {
			delete(e.workers, k)
			e.mu.Unlock()
			return
		}
		w.dirty = false
		e.mu.Unlock()
	}
}

// looking is called as w's chat loop is about to read the chat's pending
// input from the store: input appended before then is in that read, so
// its kick need not run the chat again. Without it, every message that
// reached a busy chat, and was answered by its next turn, would cost one
// more lease and read of an empty chat once the turns ended.
func (e *Engine) looking(w *worker) {
	e.mu.Lock()
	w.dirty = false
	e.mu.Unlock()
}

func (e *Engine) reap(k botgw.ChatKey) {
	e.mu.Lock()
	delete(e.workers, k)
	e.mu.Unlock()
}

// Run polls the store for chats whose work was orphaned (a replica died, or
// input arrived at another replica that is gone) until ctx ends or Close.
//
// Each wait is PollInterval ± 25 %, at random. A claim hides a chat for the
// visibility timeout, so with fixed ticks a replica whose ticks divide it
// polls again the moment the chat is due and wins every claim: one that
// cannot serve the chat (its lease lost under a stuck turn) would starve
// the others of it until its turn ended.
func (e *Engine) Run(ctx context.Context) error {
	defer close(e.done)
	t := time.NewTimer(e.cfg.PollInterval)
	defer t.Stop()
	for {
		e.pollDue(ctx)
		t.Reset(jitter(e.cfg.PollInterval))
		select {
		case <-ctx.Done():
			return nil
		case <-e.ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// jitter is d ± 25 %, uniformly.
func jitter(d time.Duration) time.Duration {
	return d*3/4 + rand.N(d/2+1)
}

func (e *Engine) pollDue(ctx context.Context) {
	if e.isClosing() {
		return
	}
	chats, err := e.deps.Store.Due(ctx, 100)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("poll due chats", "err", err)
		}
		return
	}
	for _, k := range chats {
		e.kick(k, nil)
	}
}

func (e *Engine) isClosing() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closing
}

// Close stops intake of new work and waits for running turns until ctx
// ends; then it cancels them (their input stays pending, their leases are
// released, another replica or the next start picks them up).
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	e.closing = true
	e.mu.Unlock()
	finished := make(chan struct{})
	go func() { e.wg.Wait(); close(finished) }()
	select {
	case <-finished:
		e.cancel()
		return nil
	case <-ctx.Done():
		e.cancel()
		<-finished
		return fmt.Errorf("close engine: turns cancelled: %w", ctx.Err())
	}
}
