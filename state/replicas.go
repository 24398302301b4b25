package state

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Writes that must survive a failover.
//
// Redis replicates asynchronously: a primary that dies may take with it
// writes it already answered. With Options.MinReplicas > 0, the writes the
// gateway acts on — Append (the platform is acknowledged after it), Commit
// (the reply is sent after it), and the delivery marks of Finish, Delivered
// and Progress (a reply is not sent again after them) — are each followed
// by WAIT in the same pipeline, on the same connection, so WAIT counts the
// replicas that have that very write. Fewer than MinReplicas within
// ReplicaTimeout makes the write fail with ErrNotReplicated: the input is
// answered 503 and the platform sends it again, the turn is run again,
// the mark is retried. The write itself may have been applied; each of
// them is safe to repeat (dedupe ids, the state version, ids in the
// outbox). On a cluster the pipeline goes to the primary of the chat's
// slot, so WAIT runs per shard.

// ErrNotReplicated is the error of a write that fewer than MinReplicas
// replicas confirmed in time.
var ErrNotReplicated = errors.New("not confirmed by enough replicas")

// run runs sc like Script.Run, and with MinReplicas and wait set, WAITs
// for the replicas on the same connection; a short count is the returned
// command's error.
func (s *Store) run(ctx context.Context, sc *redis.Script, wait bool, keys []string, args ...any) *redis.Cmd {
	if s.opts.MinReplicas <= 0 || !wait {
		return sc.Run(ctx, s.c, keys, args...)
	}
	var res *redis.Cmd
	err := s.replicated(ctx, keys[0], func(p redis.Pipeliner) {
		res = sc.EvalSha(ctx, p, keys, args...)
	})
	if err != nil && res.Err() == nil {
		res.SetErr(err)
	}
	return res
}

// replicated runs the commands fill queues and a WAIT as one pipeline on
// the connection to the primary that holds key, reloading the scripts on
// NOSCRIPT (a promoted replica may lack them) and running fill again.
func (s *Store) replicated(ctx context.Context, key string, fill func(p redis.Pipeliner)) error {
	var c redis.Cmdable = s.c
	if cc, ok := s.c.(*redis.ClusterClient); ok {
		node, err := cc.MasterForKey(ctx, key)
		if err != nil {
			return fmt.Errorf("find the primary of %s: %w", key, err)
		}
		c = node
	}
	var wait *redis.Cmd
	run := func() error {
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			fill(p)
			wait = p.Do(ctx, "wait", s.opts.MinReplicas, s.opts.ReplicaTimeout.Milliseconds())
			return nil
		})
		return err
	}
	err := run()
	if redis.HasErrorPrefix(err, "NOSCRIPT") {
		if err = loadScripts(ctx, s.c); err == nil {
			err = run()
		}
	}
	if err != nil {
		return err
	}
	if n, _ := wait.Int64(); n < int64(s.opts.MinReplicas) {
		return fmt.Errorf("%d of %d replicas confirmed the write within %s: %w",
			n, s.opts.MinReplicas, s.opts.ReplicaTimeout, ErrNotReplicated)
	}
	return nil
}
