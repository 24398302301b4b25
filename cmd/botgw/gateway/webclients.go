package gateway

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw/state/ratelimit"
)

// webClients is the web chat's per-client message limit, one key per
// client address ("rate:<prefix>:webclient:<client>"), so every replica
// counts the same allowance.
type webClients struct{ lim *ratelimit.Limiter }

func newWebClients(rdb redis.UniversalClient, prefix string) webClients {
	return webClients{lim: ratelimit.New(rdb, ratelimit.Keys{Rate: prefix + ":webclient:"}, nil)}
}

// Allow takes one message of client's perMinute allowance (a burst of
// perMinute, then one every minute/perMinute).
func (w webClients) Allow(ctx context.Context, client string, perMinute int) (time.Duration, error) {
	wait, err := w.lim.Allow(ctx, ratelimit.Rule{Key: client, Limit: ratelimit.PerMinute(float64(perMinute), perMinute)})
	if err != nil {
		return 0, fmt.Errorf("web client limit: %w", err)
	}
	if wait > 0 {
		return max(wait, time.Second), nil
	}
	return 0, nil
}
