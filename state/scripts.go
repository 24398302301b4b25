package state

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/redis/go-redis/v9"
)

var (
	//go:embed lua/append.lua
	appendSrc string
	//go:embed lua/begin.lua
	beginSrc string
	//go:embed lua/commit.lua
	commitSrc string
	//go:embed lua/stream.lua
	streamSrc string
	//go:embed lua/streamnext.lua
	streamNextSrc string
	//go:embed lua/streamlease.lua
	streamLeaseSrc string
	//go:embed lua/delivered.lua
	deliveredSrc string
	//go:embed lua/finish.lua
	finishSrc string
	//go:embed lua/renew.lua
	renewSrc string
	//go:embed lua/release.lua
	releaseSrc string
	//go:embed lua/claim.lua
	claimSrc string
	//go:embed lua/unmark.lua
	unmarkSrc string
	//go:embed lua/progress.lua
	progressSrc string
)

var (
	appendScript     = redis.NewScript(appendSrc)
	beginScript      = redis.NewScript(beginSrc)
	commitScript     = redis.NewScript(streamSrc + commitSrc) // stream.lua defines stream_append
	deliveredScript  = redis.NewScript(deliveredSrc)
	finishScript     = redis.NewScript(finishSrc)
	renewScript      = redis.NewScript(renewSrc)
	releaseScript    = redis.NewScript(releaseSrc)
	claimScript      = redis.NewScript(claimSrc)
	unmarkScript     = redis.NewScript(unmarkSrc)
	progressScript   = redis.NewScript(progressSrc)
	streamNextScript = redis.NewScript(streamNextSrc)
	leaseScript      = redis.NewScript(streamLeaseSrc)

	allScripts = []*redis.Script{
		appendScript, beginScript, commitScript, deliveredScript,
		finishScript, renewScript, releaseScript, claimScript, unmarkScript,
		progressScript, streamNextScript, leaseScript,
	}
)

// loadScripts caches every script on the server (on a cluster, on every
// master), so pipelines can use EVALSHA.
func loadScripts(ctx context.Context, c redis.UniversalClient) error {
	for _, sc := range allScripts {
		if err := sc.Load(ctx, c).Err(); err != nil {
			return fmt.Errorf("load scripts: %w", err)
		}
	}
	return nil
}

// pipe runs the commands fill queues as one pipeline. Script.Run does not
// fall back to EVAL inside a pipeline, so on NOSCRIPT (a restarted or
// failed-over server) pipe reloads the scripts and runs fill once more; fill
// must therefore only queue commands that are safe to repeat, and assign its
// result commands afresh on each call.
func (s *Store) pipe(ctx context.Context, fill func(p redis.Pipeliner)) error {
	run := func() error {
		_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			fill(p)
			return nil
		})
		return err
	}
	err := run()
	if !redis.HasErrorPrefix(err, "NOSCRIPT") {
		return err
	}
	if err := loadScripts(ctx, s.c); err != nil {
		return err
	}
	return run()
}

// ordered runs steps so that each one's commands execute after those of the
// step before. On a single node that is one pipeline, which Redis executes
// in order. A cluster client sends each node's share of a pipeline
// concurrently, so there each step is its own round trip.
func (s *Store) ordered(ctx context.Context, steps ...func(p redis.Pipeliner)) error {
	if !s.cluster {
		return s.pipe(ctx, func(p redis.Pipeliner) {
			for _, step := range steps {
				step(p)
			}
		})
	}
	for _, step := range steps {
		if err := s.pipe(ctx, step); err != nil {
			return err
		}
	}
	return nil
}
