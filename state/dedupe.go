package state

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Inbound ids are remembered one key each, "<prefix>:{<chat>}:id:<id>",
// set with NX and expiring with the dedupe window: one command per message.
// Releases before this one kept them in a zset per chat,
// "<prefix>:{<chat>}:seen", which every append also had to expire and now
// and then trim.
//
// During a rolling upgrade from such a release, a platform's retry of a
// message may reach a replica of the other release, so for one dedupe
// window after this release first met the deployment's Redis, appends
// also read and write the seen zsets (what the earlier release reads).
// When it first starts on a Redis that holds no seen zset (a new
// deployment, or one that took no message for a whole window), there is
// nothing to keep, and appends never touch them.
//
// The decision is kept for the others in "<prefix>:dedupe:{layout}": the
// unix ms until which the zsets are kept, 0 for never. It expires after
// two windows, so a deployment that went back to an earlier release and
// came forward again is looked at again.

// checkDedupeLayout reads, or makes and records, the decision.
func (s *Store) checkDedupeLayout(ctx context.Context) error {
	until, err := s.upgradeWindow(ctx, s.prefix+":dedupe:{layout}", 2*s.opts.DedupeTTL, s.legacyDedupeExists)
	if err != nil {
		return fmt.Errorf("read the dedupe layout: %w", err)
	}
	s.legacyUntil.Store(until)
	if left := time.Until(time.UnixMilli(until)); left > 0 {
		s.log.Info("dedupe records of an earlier release found: appends keep them too for a while", "left", left.Round(time.Minute).String())
	}
	return nil
}

// upgradeWindow reads the decision kept in key: until when (unix ms)
// replicas of this release keep doing what an earlier release needs. When
// there is none, this replica makes it: one dedupe window from now if
// earlier finds that release's data, else 0 (never); it records it for
// ttl, unless another replica was first, whose decision it takes.
func (s *Store) upgradeWindow(ctx context.Context, key string, ttl time.Duration, earlier func(context.Context) (bool, error)) (int64, error) {
	until, err := s.c.Get(ctx, key).Int64()
	if !errors.Is(err, redis.Nil) {
		return until, err
	}
	found, err := earlier(ctx)
	if err != nil {
		return 0, fmt.Errorf("look for data of an earlier release: %w", err)
	}
	if found {
		until = s.nowMs() + ms(s.opts.DedupeTTL)
	}
	if err := s.c.SetNX(ctx, key, until, ttl).Err(); err != nil {
		return 0, err
	}
	return s.c.Get(ctx, key).Int64() // another replica's, should it have been first
}

// legacyDedupeExists reports whether any chat has a seen zset.
func (s *Store) legacyDedupeExists(ctx context.Context) (bool, error) {
	return s.anyKey(ctx, globEscape(s.prefix)+":{*}:seen")
}

// anyKey reports whether any key matches pattern, scanning the keyspace
// (every master's, on a cluster) until it finds one.
func (s *Store) anyKey(ctx context.Context, pattern string) (bool, error) {
	scan := func(c redis.Cmdable) (bool, error) {
		iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
		found := iter.Next(ctx)
		return found, iter.Err()
	}
	cc, ok := s.c.(*redis.ClusterClient)
	if !ok {
		return scan(s.c)
	}
	masters, err := clusterMasters(ctx, cc)
	if err != nil {
		return false, err
	}
	for _, m := range masters {
		if found, err := scan(m); found || err != nil {
			return found, err
		}
	}
	return false, nil
}
