// Package whatsapp is the WhatsApp channel: a linked device (as WhatsApp Web
// is) on go.mau.fi/whatsmeow, with the session in a pure-Go SQLite store.
//
// One replica holds the session at a time, chosen by a Lease; it logs in,
// turns incoming messages into botgw.Inbound (durable before WhatsApp gets
// the ack) and sends replies converted from Markdown to WhatsApp formatting.
// The connection state machine (reconnect with backoff and jitter, logged
// out, temporary ban, stream replaced, client outdated) is exported through
// State and botgw.Health.
//
// whatsmeow imports go.mau.fi/libsignal (GPL-3.0): a distributed binary that
// includes this package carries GPL-3.0 obligations. Build cmd/botgw with
// the nowhatsapp tag to leave it out.
package whatsapp

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.mau.fi/whatsmeow/store/sqlstore"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels"
	"github.com/botgw/botgw/state/ratelimit"
)

// Name is the channel name in chat keys and config.
const Name = "whatsapp"

// Adapter is the WhatsApp channel. It implements botgw.Channel,
// botgw.Listener, botgw.Typer and botgw.Health. Safe for concurrent use.
type Adapter struct {
	channels.Ignored // counts messages read and not passed on

	cfg   Config
	log   *slog.Logger
	lease Lease
	owner string
	ttl   time.Duration
	tm    timing
	state stateBox
	// open returns a client for the linked device, or errNotLinked.
	open  func(ctx context.Context) (client, error)
	store *sqlstore.Container

	mu      sync.Mutex
	cur     client // the logged-in client, nil when not connected here
	deliver botgw.Deliver

	progress  channels.Progress                               // parts of split replies already sent
	clock     func() time.Time                                // time.Now; tests set a fake clock
	wait      func(ctx context.Context, d time.Duration) bool // sleep; tests set a fake clock
	shared    *shared                                         // what the replicas share in Redis
	closeMem  func()                                          // stops the in-process Redis, if shared is one
	holdc     holdCache                                       // the number's hold as last read
	probe     func(ctx context.Context) error                 // whether the store takes writes; nil: the lease answers
	dead      botgw.DeadLetters                               // where input that can never be stored goes
	failures  failures                                        // store failures per message id
	counts    counts
	waits     waiters   // sends waiting now, by reason
	aliases   Aliases   // pins each person's chat key
	operators []string  // operators' numbers (digits)
	ops       operators // operators' LIDs, resolved at login
	looked    lookups   // numbers whose LID was asked of WhatsApp, and when
	backlog   backlog   // old messages waiting for their chat's one reply
	retries   retries   // media retry receipts waiting for the phone's answer
	// redeliverWanted is set while a reconnect for redelivery is queued.
	redeliverWanted atomic.Bool
	logins          atomic.Int64 // logins so far (a logged-out back-off starts over after one)

	pacer       *ratelimit.Limiter // the number's send rate and typing pauses; nil: unpaced
	typingDelay pauseRange         // the typing pause's bounds
}

var (
	_ botgw.Channel  = (*Adapter)(nil)
	_ botgw.Listener = (*Adapter)(nil)
	_ botgw.Typer    = (*Adapter)(nil)
	_ botgw.Health   = (*Adapter)(nil)
)

// timing holds the adapter's waits; tests shorten them.
type timing struct {
	backoffMin, backoffMax time.Duration // reconnect backoff, doubled per failure, with jitter
	connectTimeout         time.Duration // bound on one connect attempt
	relinkPoll             time.Duration // how often to look for a (re-)linked device
	keepAliveMax           time.Duration // failing keep-alives this long force a reconnect
	banRetry               time.Duration // wait after a ban without a known expiry
	healthyAfter           time.Duration // a connection up this long resets the reconnect back-off
	stormWindow            time.Duration // stormCount reconnects within it raise the alarm
	stormCount             int
	resumePoll             time.Duration // how often a parked session looks for an operator's reconnect
	holdRecheck            time.Duration // a replica trusts its last read of the number's hold this long
	holdPoll               time.Duration // a held send looks again this often (an operator may lift the hold)
	reachOutHold           time.Duration // the number's hold after a 463 (reach-out timelock)
	forbiddenHold          time.Duration // the number's hold after repeated 403s
	poisonAfter            int           // store failures of one message (the store taking other writes) before it is dead-lettered
	sendAttempts           int           // tries per message part
	sendBackoff            time.Duration // first wait between send tries
	rateLimitPause         time.Duration // the number's hold after a rate-over-limit (429)
	typingEvery            time.Duration // "composing" renewal
	storeAttempts          int           // tries to store one message inside the event handler
	storeTimeout           time.Duration // bound on one try
	storeBackoff           time.Duration // first wait between tries
	slowStore              time.Duration // a store slower than this is logged and counted
	watchdog               time.Duration // how often a connected session checks whatsmeow is still connected and logged in
}

// linkConnectTimeout bounds connecting in `botgw whatsapp link`: without
// network the command fails well within 30 s.
const linkConnectTimeout = 25 * time.Second

var defaultTiming = timing{
	backoffMin:     2 * time.Second,
	backoffMax:     5 * time.Minute,
	connectTimeout: 30 * time.Second,
	relinkPoll:     30 * time.Second,
	keepAliveMax:   3 * time.Minute,
	banRetry:       time.Hour,
	healthyAfter:   2 * time.Minute,
	stormWindow:    15 * time.Minute,
	stormCount:     6,
	resumePoll:     5 * time.Second,
	holdRecheck:    time.Second,
	holdPoll:       5 * time.Second,
	reachOutHold:   24 * time.Hour,
	forbiddenHold:  2 * time.Hour,
	poisonAfter:    3,
	sendAttempts:   4,
	sendBackoff:    time.Second,
	rateLimitPause: 10 * time.Minute,
	typingEvery:    10 * time.Second,
	storeAttempts:  3,
	storeTimeout:   5 * time.Second,
	storeBackoff:   500 * time.Millisecond,
	slowStore:      time.Second,
	watchdog:       20 * time.Second,
}

// Option sets an optional dependency of New.
type Option func(*Adapter)

// WithAliases shares the pinned chat keys of WhatsApp users between
// replicas (see Aliases); without it they live in this process only.
func WithAliases(al Aliases) Option { return func(a *Adapter) { a.aliases = al } }

// WithStoreProbe tells the adapter whether the store takes writes (the
// gateway's readiness probe): a message that fails to store while the
// probe passes is the message's fault, and after a few redeliveries it
// goes to dead letters instead of being redelivered forever. Without it
// the lease's renewal is the probe.
func WithStoreProbe(probe func(ctx context.Context) error) Option {
	return func(a *Adapter) { a.probe = probe }
}

// WithDeadLetters is where a message that can never be stored is kept
// (then acknowledged); without it such a message stays unacknowledged.
func WithDeadLetters(d botgw.DeadLetters) Option { return func(a *Adapter) { a.dead = d } }

// WithPacer paces sends by p: the linked number's rate_per_minute, shared by
// every replica, and the typing pause before each message. Without it the
// adapter sends unpaced (tests of other behaviour).
func WithPacer(p *ratelimit.Limiter) Option { return func(a *Adapter) { a.pacer = p } }

// WithOperators names the operators (admin.operators.whatsapp: numbers in
// digits). Their LIDs are resolved at each login, so an operator whom
// WhatsApp shows by LID is still recognised.
func WithOperators(numbers []string) Option {
	return func(a *Adapter) { a.operators = numbers }
}

// New opens the device store (creating it if needed; no network) and
// returns the channel, a botgw.Listener. Listen connects while this replica
// holds lease; a nil lease means a single replica. Close releases the store.
func New(ctx context.Context, cfg Config, lease Lease, log *slog.Logger, opts ...Option) (botgw.Channel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log = log.With("channel", Name)
	a := newAdapter(cfg, lease, log, nil)
	var c *sqlstore.Container
	err := withUpgradeLock(ctx, a.lease, a.owner, time.Second, func() (err error) {
		c, err = openStore(ctx, cfg, log)
		return err
	})
	if err != nil {
		return nil, err
	}
	a.open = func(ctx context.Context) (client, error) { return linkedClient(ctx, c, cfg, log) }
	a.store = c
	for _, o := range opts {
		o(a)
	}
	if err := a.memShared(); err != nil {
		c.Close()
		return nil, err
	}
	a.initState(ctx)
	return a, nil
}

func newAdapter(cfg Config, lease Lease, log *slog.Logger, open func(context.Context) (client, error)) *Adapter {
	if lease == nil {
		lease = soloLease{}
	}
	a := &Adapter{cfg: cfg, log: log, lease: lease, owner: leaseOwner(), ttl: cfg.leaseTTL(), tm: defaultTiming, open: open,
		clock: time.Now, wait: sleep, aliases: &memAliases{},
		typingDelay: cfg.typingRange()}
	a.state.s = State{State: StateStopped, Since: time.Now()}
	return a
}

// initState records whether the store holds a linked device.
func (a *Adapter) initState(ctx context.Context) {
	dev, err := a.store.GetFirstDevice(ctx)
	if err != nil || dev.ID == nil {
		a.state.set(StateNotLinked, errNotLinked.Error(), nil)
		a.log.Warn("whatsapp channel not ready: " + errNotLinked.Error())
		return
	}
	a.state.update(func(s *State) { s.Linked, s.JID = true, dev.ID.ToNonAD().String() })
}

// Name returns "whatsapp".
func (a *Adapter) Name() string { return Name }

// Close closes the device store. Call it after Listen returned.
func (a *Adapter) Close() error {
	if a.closeMem != nil {
		a.closeMem()
	}
	if a.store == nil {
		return nil
	}
	if err := a.store.Close(); err != nil {
		return fmt.Errorf("close whatsapp store: %w", err)
	}
	return nil
}

// setState moves to st and logs the change once.
func (a *Adapter) setState(st ConnState, detail string) {
	if !a.state.set(st, detail, nil) {
		return
	}
	level := slog.LevelInfo
	switch st {
	case StateDisconnected, StateKeepAlive, StateNotLinked:
		level = slog.LevelWarn
	case StateLoggedOut, StateBanned, StateOutdated, StateReplaced, StateLocked, StateRejected:
		level = slog.LevelError
	}
	a.log.Log(context.Background(), level, "whatsapp connection state", "state", st, "detail", detail)
}

// current is the logged-in client of this replica, or nil.
func (a *Adapter) current() client {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cur
}

func (a *Adapter) setCurrent(c client) {
	a.mu.Lock()
	a.cur = c
	a.mu.Unlock()
	a.waits.wake()
}
