package main

import (
	"context"
	"fmt"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// webClients is the web chat's per-client message limit (GCRA on
// redis_rate), one key per client address, so every replica counts the
// same allowance.
type webClients struct {
	lim    *redis_rate.Limiter
	prefix string
}

func newWebClients(rdb redis.UniversalClient, prefix string) webClients {
	return webClients{lim: redis_rate.NewLimiter(rdb), prefix: prefix + ":webclient:"}
}

// Allow takes one message of client's perMinute allowance (a burst of
// perMinute, then one every minute/perMinute).
func (w webClients) Allow(ctx context.Context, client string, perMinute int) (time.Duration, error) {
	res, err := w.lim.Allow(ctx, w.prefix+client, redis_rate.PerMinute(perMinute))
	if err != nil {
		return 0, fmt.Errorf("web client limit: %w", err)
	}
	if res.Allowed == 0 {
		return max(res.RetryAfter, time.Second), nil
	}
	return 0, nil
}
