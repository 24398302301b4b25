// Package stream relays the conversation stream: the records each commit
// keeps in Redis (state/stream.go) go to a sink (a webhook, Kafka) in each
// chat's order, at least once, and are removed once the sink took them.
//
// One Relay runs per sink on every replica. The records are split into
// groups (one on a single Redis, state.StreamGroups on a cluster), each
// with a Redis lease, so one replica at a time relays a group and so a
// chat; the others wait to take over. A holder reads up to ReadBatch
// records of one stream unit (each chat's in order, numbered as they are
// read) with one script and hands them to the sink in batches of at most
// MaxBatch. The next script of that unit removes what the sink took and
// reads what follows. On failure it retries from the first record the
// sink did not take, with backoff, forever, without skipping. Records
// wait in Redis meanwhile, not in memory.
//
// Redis commands are what the relay costs, so it reads seldom and much:
// after a read that found records but not ReadBatch, it lets records
// gather for Linger before the next; an idle group looks every Poll.
package stream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"sync"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state"
)

// Sink takes batches of records.
type Sink interface {
	// Name is the sink's name in config, metrics and Redis keys.
	Name() string
	// Deliver hands recs (in order, at most MaxBatch) to the sink and
	// returns nil once the sink acknowledged all of them. It blocks until
	// then or ctx ends; it is called by one goroutine per group at once.
	Deliver(ctx context.Context, recs []botgw.StreamRecord) error
}

// Store is the part of state.Store the relay uses.
type Store interface {
	StreamGroupCount() int
	StreamUnits(ctx context.Context, sink string, group, n int) ([]string, error)
	StreamNext(ctx context.Context, sink, tag string, done state.StreamBatch, n, m int) (state.StreamBatch, bool, error)
	StreamLease(ctx context.Context, sink string, group int, token string, ttl time.Duration) (bool, error)
	StreamReleaseLease(ctx context.Context, sink string, group int, token string) error
	StreamBacklog(ctx context.Context, sink string) (state.StreamBacklog, error)
	SetStreamMode(sink string, m state.StreamMode)
	StreamDropped(sink string) int64
}

// MaxBatch is the most records one delivery carries.
const MaxBatch = 100

// ReadBatch is the most records one read of a unit takes from Redis.
const ReadBatch = 1000

// Config tunes a relay; zero fields take the defaults.
type Config struct {
	// Content keeps text and location in the records; false leaves them out.
	Content bool
	// MaxPending is the number of records waiting for the sink at which
	// new records stop being kept (counted as dropped, not numbered).
	// 0: no bound.
	MaxPending int64
	LeaseTTL   time.Duration // a group's lease; default 10s
	Poll       time.Duration // how often an idle group looks for records; default 250ms
	Linger     time.Duration // how long records gather after a read that was not full; default 250ms
	MinBackoff time.Duration // first retry delay after a failed delivery; default 200ms
	MaxBackoff time.Duration // longest retry delay; default 30s
	Watch      time.Duration // how often the backlog is measured; default 2s
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.LeaseTTL, 10*time.Second)
	def(&c.Poll, 250*time.Millisecond)
	def(&c.Linger, 250*time.Millisecond)
	def(&c.MinBackoff, 200*time.Millisecond)
	def(&c.MaxBackoff, 30*time.Second)
	def(&c.Watch, 2*time.Second)
	return c
}

// Relay delivers one sink's records. Run it once per replica.
type Relay struct {
	sink  Sink
	store Store
	cfg   Config
	log   *slog.Logger
	token string
	stats *stats
}

// New builds the relay of sink.
func New(sink Sink, store Store, cfg Config, log *slog.Logger) *Relay {
	b := make([]byte, 8)
	rand.Read(b)
	return &Relay{sink: sink, store: store, cfg: cfg.withDefaults(), log: log.With("sink", sink.Name()),
		token: hex.EncodeToString(b), stats: newStats(sink.Name(), func() int64 { return store.StreamDropped(sink.Name()) })}
}

// Name is the sink's name.
func (r *Relay) Name() string { return r.sink.Name() }

// Run relays until ctx ends, then gives its leases back.
func (r *Relay) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for g := range r.store.StreamGroupCount() {
		wg.Go(func() { r.group(ctx, g) })
	}
	wg.Go(func() { r.watch(ctx) })
	wg.Wait()
	return nil
}

// group relays one group while this replica holds its lease.
func (r *Relay) group(ctx context.Context, g int) {
	taken := map[string]took{} // per unit, what the sink took and is not removed yet
	defer func() {
		ctx := context.WithoutCancel(ctx)
		r.flush(ctx, taken)
		r.store.StreamReleaseLease(ctx, r.sink.Name(), g, r.token)
	}()
	var renewed time.Time
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		if time.Since(renewed) > r.cfg.LeaseTTL/3 {
			ok, err := r.store.StreamLease(ctx, r.sink.Name(), g, r.token, r.cfg.LeaseTTL)
			if err != nil || !ok {
				renewed = time.Time{}
				sleep(ctx, r.cfg.LeaseTTL/3)
				continue
			}
			renewed = time.Now()
		}
		n, full, err := r.cycle(ctx, g, taken)
		switch {
		case err != nil && ctx.Err() == nil:
			backoff = r.failed(g, err, backoff)
			sleep(ctx, backoff)
		case err != nil:
		case n == 0:
			backoff = 0
			sleep(ctx, r.cfg.Poll)
		case !full:
			backoff = 0
			sleep(ctx, r.cfg.Linger)
		default:
			backoff = 0
		}
	}
}

// took is a read of a unit and how many of its records the sink took.
type took struct {
	batch state.StreamBatch
	n     int
}

// flush removes, on the way out, what the sink took and is still in Redis,
// so a restart does not send it again (it would be harmless: at least
// once).
func (r *Relay) flush(ctx context.Context, taken map[string]took) {
	for tag, t := range taken {
		if _, _, err := r.store.StreamNext(ctx, r.sink.Name(), tag, t.batch, t.n, 0); err != nil {
			r.log.Warn("remove delivered stream records at shutdown; they go again", "err", err)
		}
	}
}

// cycle delivers what group g has waiting, unit by unit, and returns the
// number of records delivered and whether a unit had more than one read
// takes. It stops at the first failure: the unit's undelivered records
// stay in Redis and are read again.
func (r *Relay) cycle(ctx context.Context, g int, taken map[string]took) (int, bool, error) {
	units, err := r.store.StreamUnits(ctx, r.sink.Name(), g, 64)
	if err != nil {
		return 0, false, err
	}
	total, full := 0, false
	for _, tag := range units {
		n, more, err := r.unit(ctx, tag, taken)
		total, full = total+n, full || more
		if err != nil {
			return total, full, err
		}
	}
	return total, full, nil
}

// unit removes what the sink took of the unit's last read, reads what
// follows and delivers it in batches of MaxBatch, noting in taken how
// much the sink took: all of it, or on a failure the batches before the
// failed one.
func (r *Relay) unit(ctx context.Context, tag string, taken map[string]took) (int, bool, error) {
	prev := taken[tag]
	b, ok, err := r.store.StreamNext(ctx, r.sink.Name(), tag, prev.batch, prev.n, ReadBatch)
	if err != nil {
		return 0, false, err // prev stays in taken: removed with the next read
	}
	delete(taken, tag)
	if !ok {
		r.log.Info("stream unit trimmed by another relay meanwhile; reading it again", "unit", tag)
	}
	if len(b.Raws) == 0 {
		return 0, false, nil
	}
	n, records, derr := r.deliver(ctx, b)
	if n > 0 {
		taken[tag] = took{batch: b, n: n}
	}
	r.stats.add(records)
	return records, len(b.Raws) == ReadBatch, derr
}

// deliver hands b to the sink in batches of MaxBatch and returns how many
// of its records the sink took (a prefix), how many of those it was sent
// (undecodable ones are not), and the failure that stopped it.
func (r *Relay) deliver(ctx context.Context, b state.StreamBatch) (taken, n int, err error) {
	for taken < len(b.Raws) {
		end := min(taken+MaxBatch, len(b.Raws))
		recs := r.decode(b, taken, end)
		if len(recs) > 0 {
			if err := r.sink.Deliver(ctx, recs); err != nil {
				return taken, n, fmt.Errorf("deliver %d records: %w", len(recs), err)
			}
		}
		taken, n = end, n+len(recs)
	}
	return taken, n, nil
}

// decode turns records [from, to) of b into what the sink gets. A record
// that does not decode can never be delivered: it is logged, counted and
// removed with its batch.
func (r *Relay) decode(b state.StreamBatch, from, to int) []botgw.StreamRecord {
	out := make([]botgw.StreamRecord, 0, to-from)
	for i := from; i < to; i++ {
		rec, _, err := b.Record(i)
		if err != nil {
			r.log.Error("dropping an undecodable stream record", "bytes", len(b.Raws[i]), "err", err)
			r.stats.failures.Inc()
			continue
		}
		if !r.cfg.Content {
			rec.Text, rec.Location = "", nil
		}
		out = append(out, rec)
	}
	return out
}

// failed counts a failed round and returns the next delay: doubling from
// MinBackoff to MaxBackoff, with jitter.
func (r *Relay) failed(g int, err error, last time.Duration) time.Duration {
	r.stats.failures.Inc()
	next := min(max(2*last, r.cfg.MinBackoff), r.cfg.MaxBackoff)
	r.log.Warn("stream delivery failed; retrying the same records", "group", g, "retry_in", next, "err", err)
	return next/2 + mrand.N(next/2+1)
}

// watch measures the backlog and tells the store's commits whether the
// sink is full (MaxPending records wait).
func (r *Relay) watch(ctx context.Context) {
	t := time.NewTicker(r.cfg.Watch)
	defer t.Stop()
	for {
		r.measure(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (r *Relay) measure(ctx context.Context) {
	b, err := r.store.StreamBacklog(ctx, r.sink.Name())
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
			r.log.Warn("measure the stream backlog", "err", err)
		}
		return
	}
	r.stats.set(b)
	mode := state.StreamOK
	if r.cfg.MaxPending > 0 && b.Pending >= r.cfg.MaxPending {
		mode = state.StreamFull
	}
	if prev := r.stats.mode(mode); prev != mode && mode == state.StreamFull {
		r.log.Error("stream.max_pending reached: new records are not kept for this sink until it catches up", "pending", b.Pending)
	}
	r.store.SetStreamMode(r.sink.Name(), mode)
}

// Status is one sink's line of GET /v1/admin/stream.
type Status struct {
	Name            string     `json:"name"`
	Pending         int64      `json:"pending"`
	OldestPendingAt *time.Time `json:"oldest_pending_at"`
	Delivered       int64      `json:"delivered"`
}

// Status reads the backlog now.
func (r *Relay) Status(ctx context.Context) (Status, error) {
	b, err := r.store.StreamBacklog(ctx, r.sink.Name())
	if err != nil {
		return Status{}, fmt.Errorf("stream status of %s: %w", r.sink.Name(), err)
	}
	r.stats.set(b)
	st := Status{Name: r.sink.Name(), Pending: b.Pending, Delivered: r.stats.deliveredCount()}
	if !b.Oldest.IsZero() {
		t := b.Oldest.UTC()
		st.OldestPendingAt = &t
	}
	return st, nil
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
