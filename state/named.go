package state

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Leases are named, owner-checked leases outside any chat: the one replica
// that holds the WhatsApp session, for example. Each method is one round
// trip; tokens are compared inside Redis so a stale owner never extends or
// frees another's lease.
type Leases struct{ s *Store }

// Leases returns the store's named leases.
func (s *Store) Leases() Leases { return Leases{s} }

func (l Leases) key(name string) string { return l.s.prefix + ":lease:{" + name + "}" }

var (
	tryAcquireScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`)
	renewNamedScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`)
	releaseNamedScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)
)

// TryAcquire takes name for owner for ttl if it is free or already owner's.
func (l Leases) TryAcquire(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	n, err := tryAcquireScript.Run(ctx, l.s.c, []string{l.key(name)}, owner, ms(ttl)).Int()
	if err != nil {
		return false, fmt.Errorf("acquire lease %s: %w", name, err)
	}
	return n == 1, nil
}

// Renew extends owner's hold; false means owner no longer holds it.
func (l Leases) Renew(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	n, err := renewNamedScript.Run(ctx, l.s.c, []string{l.key(name)}, owner, ms(ttl)).Int()
	if err != nil {
		return false, fmt.Errorf("renew lease %s: %w", name, err)
	}
	return n == 1, nil
}

// Release frees name if owner holds it.
func (l Leases) Release(ctx context.Context, name, owner string) error {
	if err := releaseNamedScript.Run(ctx, l.s.c, []string{l.key(name)}, owner).Err(); err != nil {
		return fmt.Errorf("release lease %s: %w", name, err)
	}
	return nil
}

// auditMaxLen caps the audit stream (approximately, as XADD MAXLEN ~ does).
const auditMaxLen = 10000

// AuditStream is a capped Redis stream of JSON records: the operator audit
// log, readable at GET /v1/admin/audit.
type AuditStream struct{ s *Store }

// AuditStream returns the store's audit stream.
func (s *Store) AuditStream() AuditStream { return AuditStream{s} }

func (a AuditStream) key() string { return a.s.prefix + ":audit" }

// Add appends one record.
func (a AuditStream) Add(ctx context.Context, rec []byte) error {
	err := a.s.c.XAdd(ctx, &redis.XAddArgs{Stream: a.key(), MaxLen: auditMaxLen, Approx: true,
		Values: []any{"rec", rec}}).Err()
	if err != nil {
		return fmt.Errorf("add audit record: %w", err)
	}
	return nil
}

// Recent returns up to n records, newest first.
func (a AuditStream) Recent(ctx context.Context, n int) ([][]byte, error) {
	msgs, err := a.s.c.XRevRangeN(ctx, a.key(), "+", "-", int64(n)).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("read audit records: %w", err)
	}
	out := make([][]byte, 0, len(msgs))
	for _, m := range msgs {
		if s, ok := m.Values["rec"].(string); ok {
			out = append(out, []byte(s))
		}
	}
	return out, nil
}
