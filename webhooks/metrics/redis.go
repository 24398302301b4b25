package metrics

import (
	"context"
	"errors"
	"net"

	"github.com/redis/go-redis/v9"
)

// RedisHook counts failed Redis commands; add it with client.AddHook.
func (m *Metrics) RedisHook() redis.Hook { return redisHook{m} }

type redisHook struct{ m *Metrics }

func (h redisHook) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			h.m.redisErrors.WithLabelValues("dial").Inc()
		}
		return c, err
	}
}

func (h redisHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		h.count(cmd, err)
		return err
	}
}

func (h redisHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			h.count(c, c.Err())
		}
		return err
	}
}

// count skips redis.Nil (a missing key is an answer, not an error) and
// script-cache misses, which go-redis answers by resending the script.
func (h redisHook) count(cmd redis.Cmder, err error) {
	if err == nil || errors.Is(err, redis.Nil) || redis.HasErrorPrefix(err, "NOSCRIPT") {
		return
	}
	h.m.redisErrors.WithLabelValues(cmd.Name()).Inc()
}
