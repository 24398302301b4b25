package state

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

// Lease takes the broadcast's cursor for token for ttl; false if another
// replica holds it.
func (b Broadcasts) Lease(ctx context.Context, id, token string, ttl time.Duration) (bool, error) {
	ok, err := b.s.c.SetNX(ctx, b.key(id, "lease"), token, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("lease broadcast %s: %w", id, err)
	}
	return ok, nil
}

// Advance moves the cursor to cursor if token still holds the lease;
// botgw.ErrLeaseLost otherwise (nothing written).
func (b Broadcasts) Advance(ctx context.Context, id, token string, cursor int) error {
	n, err := advanceScript.Run(ctx, b.s.c, []string{b.key(id, "lease"), b.key(id, "meta")}, token, cursor).Int()
	if err != nil {
		return fmt.Errorf("advance broadcast %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("advance broadcast %s: %w", id, botgw.ErrLeaseLost)
	}
	return nil
}

// Unlease gives the cursor back if token holds it.
func (b Broadcasts) Unlease(ctx context.Context, id, token string) error {
	if err := unleaseScript.Run(ctx, b.s.c, []string{b.key(id, "lease")}, token).Err(); err != nil {
		return fmt.Errorf("release broadcast %s: %w", id, err)
	}
	return nil
}

var advanceScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
redis.call("HSET", KEYS[2], "cursor", ARGV[2])
return 1`)

var unleaseScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then redis.call("DEL", KEYS[1]) end
return 1`)
