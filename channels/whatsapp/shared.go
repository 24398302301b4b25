package whatsapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// shared is what the replicas of one deployment know together about the
// linked number, kept in Redis under <prefix>:whatsapp:...: its hold, its
// sends of the day, the chats whose player wrote first, the operator's
// reconnect requests and the chats waiting for a backlog reply. Every
// method is one round trip and safe for concurrent use.
type shared struct {
	rdb    redis.UniversalClient
	prefix string
}

// WithRedis keeps the number's hold, daily send count, first-contact marks,
// reconnect requests and backlog in rdb under keys starting with prefix
// (the store's key_prefix), shared by every replica. Without it they live
// in an in-process Redis (single replica, tests).
func WithRedis(rdb redis.UniversalClient, prefix string) Option {
	return func(a *Adapter) { a.shared = &shared{rdb: rdb, prefix: prefix} }
}

// memShared gives an adapter built without WithRedis an in-process Redis
// of its own (one replica: nothing to share).
func (a *Adapter) memShared() error {
	if a.shared != nil {
		return nil
	}
	m := miniredis.NewMiniRedis()
	if err := m.Start(); err != nil {
		return fmt.Errorf("start in-process redis for whatsapp: %w", err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
	a.shared = &shared{rdb: rdb, prefix: "botgw"}
	a.closeMem = func() { rdb.Close(); m.Close() }
	return nil
}

func (s *shared) key(parts ...string) string {
	k := s.prefix + ":whatsapp"
	for _, p := range parts {
		k += ":" + p
	}
	return k
}

// putHoldScript keeps the hold that ends last: a shorter hold never
// shortens one in force. KEYS[1] the hold; ARGV: until (Unix ms), the
// hold's JSON, the key's lifetime (ms). Returns the JSON in force.
var putHoldScript = redis.NewScript(`
local cur = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if cur >= tonumber(ARGV[1]) then
  return redis.call('HGET', KEYS[1], 'json')
end
redis.call('HSET', KEYS[1], 'until', ARGV[1], 'json', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return ARGV[2]`)

// holdKeep is how long a hold's key outlives its end (for the console's
// "held until" after the fact); ends are compared on the adapter's clock.
const holdKeep = 24 * time.Hour

// putHold stores h unless a hold ending later is in force, and returns the
// hold in force.
func (s *shared) putHold(ctx context.Context, number string, h Hold, now time.Time) (Hold, error) {
	b, err := json.Marshal(h)
	if err != nil {
		return Hold{}, fmt.Errorf("encode hold: %w", err)
	}
	life := h.Until.Sub(now) + holdKeep
	v, err := putHoldScript.Run(ctx, s.rdb, []string{s.key("hold", number)}, h.Until.UnixMilli(), b, life.Milliseconds()).Text()
	if err != nil {
		return Hold{}, fmt.Errorf("hold whatsapp number: %w", err)
	}
	var cur Hold
	if err := json.Unmarshal([]byte(v), &cur); err != nil {
		return Hold{}, fmt.Errorf("decode hold: %w", err)
	}
	return cur, nil
}

// hold is the number's last hold (zero if none was set lately); it may
// have ended already.
func (s *shared) hold(ctx context.Context, number string) (Hold, error) {
	v, err := s.rdb.HGet(ctx, s.key("hold", number), "json").Result()
	if errors.Is(err, redis.Nil) {
		return Hold{}, nil
	}
	if err != nil {
		return Hold{}, fmt.Errorf("read whatsapp number hold: %w", err)
	}
	var h Hold
	if err := json.Unmarshal([]byte(v), &h); err != nil {
		return Hold{}, fmt.Errorf("decode hold: %w", err)
	}
	return h, nil
}

// liftHold ends the number's hold now (an operator's decision).
func (s *shared) liftHold(ctx context.Context, number string) error {
	if err := s.rdb.Del(ctx, s.key("hold", number)).Err(); err != nil {
		return fmt.Errorf("lift whatsapp number hold: %w", err)
	}
	return nil
}

// strike counts one refusal of kind (403) within window and returns the
// count so far, shared by every replica.
func (s *shared) strike(ctx context.Context, number, kind string, window time.Duration) (int64, error) {
	k := s.key("strikes", number, kind)
	var n *redis.IntCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		n = p.Incr(ctx, k)
		p.PExpire(ctx, k, window) // NX is not in miniredis: the window runs from the last strike
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("count whatsapp refusals: %w", err)
	}
	return n.Val(), nil
}

// takeScript takes one of the day's sends if the cap allows. KEYS[1] the
// day's count; ARGV: cap, the key's lifetime (ms). Returns the count after
// taking, or -1 when the cap is reached (nothing taken).
var takeScript = redis.NewScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return -1 end
n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n`)

// takeDaily takes one send of day (YYYY-MM-DD, UTC) under limit; false
// when the day's cap is reached.
func (s *shared) takeDaily(ctx context.Context, number, day string, limit int) (bool, error) {
	n, err := takeScript.Run(ctx, s.rdb, []string{s.key("sent", number, day)}, limit, (48 * time.Hour).Milliseconds()).Int64()
	if err != nil {
		return false, fmt.Errorf("count whatsapp sends of %s: %w", day, err)
	}
	return n >= 0, nil
}

// sentOn is how many sends day counted.
func (s *shared) sentOn(ctx context.Context, number, day string) (int64, error) {
	n, err := s.rdb.Get(ctx, s.key("sent", number, day)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read whatsapp sends of %s: %w", day, err)
	}
	return n, nil
}

// markWrote records that the player of chat wrote to the number, for ttl.
func (s *shared) markWrote(ctx context.Context, chat string, ttl time.Duration) error {
	if err := s.rdb.Set(ctx, s.key("wrote", chat), "1", ttl).Err(); err != nil {
		return fmt.Errorf("mark %s as written from: %w", chat, err)
	}
	return nil
}

// wrote reports whether the player of chat wrote to the number lately.
func (s *shared) wrote(ctx context.Context, chat string) (bool, error) {
	n, err := s.rdb.Exists(ctx, s.key("wrote", chat)).Result()
	if err != nil {
		return false, fmt.Errorf("read first contact of %s: %w", chat, err)
	}
	return n == 1, nil
}

// askReconnect records an operator's request to connect again after
// another client took the session; the replica holding it polls.
func (s *shared) askReconnect(ctx context.Context) error {
	if err := s.rdb.Incr(ctx, s.key("reconnect")).Err(); err != nil {
		return fmt.Errorf("request whatsapp reconnect: %w", err)
	}
	return nil
}

// reconnectAsks is the number of reconnect requests so far.
func (s *shared) reconnectAsks(ctx context.Context) (int64, error) {
	n, err := s.rdb.Get(ctx, s.key("reconnect")).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read whatsapp reconnect requests: %w", err)
	}
	return n, nil
}
