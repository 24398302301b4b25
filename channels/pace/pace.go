// Package pace paces what the adapters send to the platforms' limits,
// shared by every replica through Redis: a GCRA limiter per key
// (github.com/go-redis/redis_rate, which runs on real Redis and on the
// embedded miniredis alike) and "hold" keys that stop every send of a scope
// for as long as a platform's 429 asked.
//
// Limits are taken before a send, never reacted to after it. Waiters for one
// key on one replica queue in arrival order behind a single goroutine that
// asks Redis for slots, so thousands of chats waiting for the bot-wide slot
// cost one Redis call per slot, not one per waiter. A chat waiting for its own
// slot holds no place in a shared queue: other chats go on.
package pace

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Limit is one send limit: after Burst sends at once, one every Every.
type Limit struct {
	Every time.Duration
	Burst int
}

// PerSecond is a limit of rate sends a second; burst ≥ 1.
func PerSecond(rate float64, burst int) Limit { return per(time.Second, rate, burst) }

// PerMinute is a limit of rate sends a minute; burst ≥ 1.
func PerMinute(rate float64, burst int) Limit { return per(time.Minute, rate, burst) }

func per(d time.Duration, rate float64, burst int) Limit {
	return Limit{Every: time.Duration(float64(d) / rate), Burst: max(1, burst)}
}

func (l Limit) gcra() redis_rate.Limit {
	return redis_rate.Limit{Rate: 1, Period: l.Every, Burst: l.Burst}
}

// Rule applies a Limit to a key ("telegram:7000000001:bot").
type Rule struct {
	Key   string
	Limit Limit
	// Own, when set, keeps this rule's slots instead of Redis: the chat's
	// own pace, which the engine keeps with the chat (botgw.SendPace). Only
	// for a key that nothing but this chat's lease holder sends to.
	Own *botgw.SendPace
}

// Clock tells the time and sleeps; tests replace it with a fake.
type Clock interface {
	// Now is the current time.
	Now() time.Time
	// Sleep waits d or until ctx ends (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time                                   { return time.Now() }
func (realClock) Sleep(ctx context.Context, d time.Duration) error { return channels.Sleep(ctx, d) }

// Pacer grants send slots under shared limits. Safe for concurrent use.
type Pacer struct {
	rdb    redis.UniversalClient
	lim    *redis_rate.Limiter
	prefix string
	clock  Clock
	log    *slog.Logger

	mu    sync.Mutex
	gates map[string][]*waiter // per key, oldest first; its head is being served
	holds map[string]heldScope // per scope, what Redis said last
}

// waiter is one Wait queued at a key.
type waiter struct {
	ctx   context.Context
	limit Limit
	holds []string
	done  chan error // buffered: the server never blocks on a gone waiter
}

// New builds a pacer on rdb; keys start with prefix (the store's
// key_prefix). A nil log discards.
func New(rdb redis.UniversalClient, prefix string, log *slog.Logger) *Pacer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Pacer{rdb: rdb, lim: redis_rate.NewLimiter(rdb), prefix: prefix, clock: realClock{},
		log: log, gates: map[string][]*waiter{}, holds: map[string]heldScope{}}
}

// WithClock makes the pacer sleep on c (tests).
func (p *Pacer) WithClock(c Clock) *Pacer {
	p.clock = c
	return p
}

// Clock is the clock the pacer sleeps on.
func (p *Pacer) Clock() Clock { return p.clock }

// Sleep waits d on the pacer's clock (a typing pause).
func (p *Pacer) Sleep(ctx context.Context, d time.Duration) error { return p.clock.Sleep(ctx, d) }

// Wait blocks until one send may go under every rule, taken in order (the
// narrowest first: a chat, then its group, then the whole bot), and until no
// hold on any scope of holds is in force; the holds are checked before the
// last rule. It returns ctx's error if ctx ends first, or a Redis error.
func (p *Pacer) Wait(ctx context.Context, holds []string, rules ...Rule) error {
	for i, r := range rules {
		var h []string
		if i == len(rules)-1 {
			h = holds
		}
		if err := p.acquire(ctx, r, h); err != nil {
			return err
		}
	}
	if len(rules) == 0 && len(holds) > 0 {
		return p.waitHolds(ctx, holds)
	}
	return nil
}

// acquire queues at r's key and waits for the key's server to grant a slot.
// A waiter that finds no queue serves itself: most sends meet no other
// waiter at their key (one chat's replies go one at a time), and so cost
// no goroutine.
func (p *Pacer) acquire(ctx context.Context, r Rule, holds []string) error {
	if r.Own != nil {
		return p.takeOwn(ctx, r, holds)
	}
	w := &waiter{ctx: ctx, limit: r.Limit, holds: holds, done: make(chan error, 1)}
	p.mu.Lock()
	q, serving := p.gates[r.Key]
	p.gates[r.Key] = append(q, w)
	p.mu.Unlock()
	if !serving {
		err := p.take(ctx, r.Key, w.limit, w.holds)
		if p.next(r.Key) {
			go p.serve(r.Key)
		}
		return err
	}
	select {
	case err := <-w.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// serve grants key's slots to its waiters in order until none is left.
func (p *Pacer) serve(key string) {
	for {
		p.mu.Lock()
		w := p.gates[key][0]
		p.mu.Unlock()
		var err error
		if w.ctx.Err() == nil {
			err = p.take(w.ctx, key, w.limit, w.holds)
		}
		w.done <- err
		if !p.next(key) {
			return
		}
	}
}

// next drops the served head of key's queue and reports whether a waiter
// is left; when none is, the queue is gone and the next waiter serves.
func (p *Pacer) next(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.gates[key][1:]
	if len(q) == 0 {
		delete(p.gates, key)
		return false
	}
	p.gates[key] = q
	return true
}

// takeOwn takes one slot of r from the chat's own pace and waits for it:
// no Redis call, and no queue (one chat's sends are its lease holder's).
func (p *Pacer) takeOwn(ctx context.Context, r Rule, holds []string) error {
	if err := p.waitHolds(ctx, holds); err != nil {
		return err
	}
	now := p.clock.Now()
	if d := r.Own.Take(now, r.Limit.Every, r.Limit.Burst).Sub(now); d > 0 {
		return p.clock.Sleep(ctx, d)
	}
	return nil
}

// take asks Redis for one slot of key until it is granted.
func (p *Pacer) take(ctx context.Context, key string, l Limit, holds []string) error {
	for {
		if err := p.waitHolds(ctx, holds); err != nil {
			return err
		}
		res, err := p.lim.Allow(ctx, p.prefix+":pace:"+key, l.gcra())
		if err != nil {
			return fmt.Errorf("pace %s: %w", key, err)
		}
		if res.Allowed > 0 {
			return nil
		}
		if err := p.clock.Sleep(ctx, res.RetryAfter); err != nil {
			return err
		}
	}
}
