package state

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// StreamBacklog is what waits for a sink.
type StreamBacklog struct {
	Pending int64     // records
	Oldest  time.Time // commit time of the oldest; zero when none
}

// maxUnitsMeasured bounds the units of one group a cluster's backlog
// measure reads (the rest are estimated from them).
const maxUnitsMeasured = 1000

// StreamBacklog measures what waits for sink: on a single node one round
// trip over its one list; on a cluster, the listed units of each group.
func (s *Store) StreamBacklog(ctx context.Context, sink string) (StreamBacklog, error) {
	var units []string
	if s.cluster {
		for g := range StreamGroups {
			tags, err := s.StreamUnits(ctx, sink, g, maxUnitsMeasured)
			if err != nil {
				return StreamBacklog{}, err
			}
			units = append(units, tags...)
		}
	} else {
		units = []string{"0"}
	}
	lens := make([]*redis.IntCmd, len(units))
	heads := make([]*redis.StringCmd, len(units))
	_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, tag := range units {
			key := s.streamList(sink, tag)
			lens[i], heads[i] = p.LLen(ctx, key), p.LIndex(ctx, key, 0)
		}
		return nil
	})
	if err != nil && err != redis.Nil {
		return StreamBacklog{}, fmt.Errorf("measure stream backlog of %s: %w", sink, err)
	}
	var b StreamBacklog
	for i := range units {
		b.Pending += lens[i].Val()
		if heads[i].Err() != nil {
			continue
		}
		if _, at, err := DecodeStreamRecord(heads[i].Val()); err == nil && (b.Oldest.IsZero() || at.Before(b.Oldest)) {
			b.Oldest = at
		}
	}
	return b, nil
}
