// Package ratelimit is the gateway's one rate limiter: what the adapters
// send (per chat, per group, per bot or number), what the web chat's
// clients post, and the calls to a model (requests and tokens a minute).
// Limits are shared by every replica through Redis: a GCRA limiter per key
// (github.com/go-redis/redis_rate, which runs on real Redis and on the
// embedded miniredis alike) and "hold" keys that stop everything of a scope
// for as long as a platform's or a provider's 429 asked.
//
// Limits are taken before a send or a call, never reacted to after it.
// Waiters for one key on one replica queue in arrival order behind a single
// goroutine that asks Redis for slots, so thousands of chats waiting for the
// bot-wide slot cost one Redis call per slot, not one per waiter. A chat
// waiting for its own slot holds no place in a shared queue: other chats go
// on.
package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/singleflight"

	"github.com/botgw/botgw"
)

// Limit is one limit: after Burst at once, one every Every.
type Limit struct {
	Every time.Duration
	Burst int
}

// PerSecond is a limit of rate a second; burst ≥ 1.
func PerSecond(rate float64, burst int) Limit { return per(time.Second, rate, burst) }

// PerMinute is a limit of rate a minute; burst ≥ 1.
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
	// Cost is how much of the limit one pass takes (a call's tokens); 0
	// is 1. More than the burst is charged as the burst, or it could never
	// pass.
	Cost int
	// Own, when set, keeps this rule's slots instead of Redis: the chat's
	// own pace, which the engine keeps with the chat (botgw.SendPace). Only
	// for a key that nothing but this chat's lease holder sends to; each
	// send takes one slot of it, whatever Cost says.
	Own *botgw.SendPace
}

func (r Rule) cost() int { return min(max(r.Cost, 1), max(r.Limit.Burst, 1)) }

// Keys is where a limiter's keys go in Redis: a rule's GCRA at
// "rate:" + Rate + key (redis_rate adds "rate:"), a scope's hold at
// Hold + scope.
type Keys struct{ Rate, Hold string }

// Sends is the key layout of outbound pacing under the store's key prefix:
// "rate:<prefix>:pace:<key>" and "<prefix>:pace:hold:<scope>".
func Sends(prefix string) Keys { return Keys{Rate: prefix + ":pace:", Hold: prefix + ":pace:hold:"} }

// Clock tells the time and sleeps; tests replace it with a fake.
type Clock interface {
	// Now is the current time.
	Now() time.Time
	// Sleep waits d or until ctx ends (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Limiter grants slots under shared limits. Safe for concurrent use.
type Limiter struct {
	rdb   redis.UniversalClient // nil: holds are this replica's alone, and no rule but Own
	lim   *redis_rate.Limiter
	keys  Keys
	clock Clock
	log   *slog.Logger

	mu    sync.Mutex
	gates map[string][]*waiter // per key, oldest first; its head is being served
	holds map[string]heldScope // per scope, what is known of its hold
	reads singleflight.Group   // per scope, the one read of its hold in flight
}

// waiter is one Wait queued at a key.
type waiter struct {
	ctx   context.Context
	rule  Rule
	holds []string
	done  chan error // buffered: the server never blocks on a gone waiter
}

// New builds a limiter on rdb with its keys laid out as keys. A nil rdb
// makes a limiter of this replica alone: holds are kept in memory, and a
// rule without Own fails. A nil log discards.
func New(rdb redis.UniversalClient, keys Keys, log *slog.Logger) *Limiter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	l := &Limiter{rdb: rdb, keys: keys, clock: realClock{}, log: log,
		gates: map[string][]*waiter{}, holds: map[string]heldScope{}}
	if rdb != nil {
		l.lim = redis_rate.NewLimiter(rdb)
	}
	return l
}

// WithClock makes the limiter tell time and sleep on c (tests).
func (l *Limiter) WithClock(c Clock) *Limiter {
	l.clock = c
	return l
}

// Clock is the clock the limiter sleeps on.
func (l *Limiter) Clock() Clock { return l.clock }

// Sleep waits d on the limiter's clock (a typing pause).
func (l *Limiter) Sleep(ctx context.Context, d time.Duration) error { return l.clock.Sleep(ctx, d) }

// Wait blocks until one pass is granted under every rule, taken in order
// (the narrowest first: a chat, then its group, then the whole bot), and
// until no hold on any scope of holds is in force; the holds are checked
// before each rule. It returns ctx's error if ctx ends first, or a Redis
// error.
func (l *Limiter) Wait(ctx context.Context, holds []string, rules ...Rule) error {
	for _, r := range rules {
		if err := l.acquire(ctx, r, holds); err != nil {
			return err
		}
	}
	if len(rules) == 0 && len(holds) > 0 {
		return l.waitHolds(ctx, holds)
	}
	return nil
}

// Allow takes one pass of r now if the limit has one; otherwise it takes
// nothing and returns how long until it would (a refusal, not a wait).
func (l *Limiter) Allow(ctx context.Context, r Rule) (time.Duration, error) {
	res, err := l.allow(ctx, r)
	if err != nil {
		return 0, err
	}
	if res.Allowed > 0 {
		return 0, nil
	}
	return max(res.RetryAfter, time.Nanosecond), nil
}

func (l *Limiter) allow(ctx context.Context, r Rule) (*redis_rate.Result, error) {
	if l.lim == nil {
		return nil, fmt.Errorf("limit %s: no Redis to share it in", r.Key)
	}
	res, err := l.lim.AllowN(ctx, l.keys.Rate+r.Key, r.Limit.gcra(), r.cost())
	if err != nil {
		return nil, fmt.Errorf("limit %s: %w", r.Key, err)
	}
	return res, nil
}

// acquire queues at r's key and waits for the key's server to grant a slot.
// A waiter that finds no queue serves itself: most sends meet no other
// waiter at their key (one chat's replies go one at a time), and so cost
// no goroutine.
func (l *Limiter) acquire(ctx context.Context, r Rule, holds []string) error {
	if r.Own != nil {
		return l.takeOwn(ctx, r, holds)
	}
	w := &waiter{ctx: ctx, rule: r, holds: holds, done: make(chan error, 1)}
	l.mu.Lock()
	q, serving := l.gates[r.Key]
	l.gates[r.Key] = append(q, w)
	l.mu.Unlock()
	if !serving {
		err := l.take(ctx, r, holds)
		if l.next(r.Key) {
			go l.serve(r.Key)
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
func (l *Limiter) serve(key string) {
	for {
		l.mu.Lock()
		w := l.gates[key][0]
		l.mu.Unlock()
		var err error
		if w.ctx.Err() == nil {
			err = l.take(w.ctx, w.rule, w.holds)
		}
		w.done <- err
		if !l.next(key) {
			return
		}
	}
}

// next drops the served head of key's queue and reports whether a waiter
// is left; when none is, the queue is gone and the next waiter serves.
func (l *Limiter) next(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.gates[key][1:]
	if len(q) == 0 {
		delete(l.gates, key)
		return false
	}
	l.gates[key] = q
	return true
}

// take asks Redis for one pass of r until it is granted.
func (l *Limiter) take(ctx context.Context, r Rule, holds []string) error {
	for {
		if err := l.waitHolds(ctx, holds); err != nil {
			return err
		}
		res, err := l.allow(ctx, r)
		if err != nil {
			return err
		}
		if res.Allowed > 0 {
			return nil
		}
		if err := l.clock.Sleep(ctx, res.RetryAfter); err != nil {
			return err
		}
	}
}
