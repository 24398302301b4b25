package state

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/botgw/botgw"
	"github.com/redis/go-redis/v9"
)

// RepairInterval is how often RunRepair scans for chats that have input or
// replies but no work mark.
const RepairInterval = time.Minute

// Repair gives every chat with pending input or undelivered replies a work
// mark it lacks, due at once, and returns how many it scanned. On a single
// node Append writes input and mark in one script, and nothing strands a
// chat; on a cluster the mark lives in another slot, so a failed mark or a
// replica that died between the two steps leaves input nobody would look
// for. A mark added for a chat a worker holds is harmless: whoever claims
// it finds the lease taken and leaves the chat to its holder.
func (s *Store) Repair(ctx context.Context) (int, error) {
	nodes := []redis.Cmdable{s.c}
	if cc, ok := s.c.(*redis.ClusterClient); ok {
		masters, err := clusterMasters(ctx, cc)
		if err != nil {
			return 0, fmt.Errorf("repair work marks: %w", err)
		}
		nodes = nodes[:0]
		for _, m := range masters {
			nodes = append(nodes, m)
		}
	}
	total := 0
	for _, node := range nodes {
		n, err := s.repairNode(ctx, node)
		total += n
		if err != nil {
			return total, fmt.Errorf("repair work marks: %w", err)
		}
	}
	return total, nil
}

// repairNode scans one node's per-chat lists (pending input and outboxes)
// and marks their chats, a page at a time.
func (s *Store) repairNode(ctx context.Context, node redis.Cmdable) (int, error) {
	pattern := globEscape(s.prefix) + ":{*}:*"
	var cursor uint64
	total := 0
	for {
		keys, next, err := node.ScanType(ctx, cursor, pattern, 500, "list").Result()
		if err != nil {
			return total, err
		}
		if err := s.markLists(ctx, keys); err != nil {
			return total, err
		}
		total += len(keys)
		if cursor = next; cursor == 0 {
			return total, nil
		}
	}
}

// markLists adds a due mark (NX) for the chat of each list key.
func (s *Store) markLists(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	due := float64(s.nowMs())
	return s.pipe(ctx, func(p redis.Pipeliner) {
		for _, key := range keys {
			if k, ok := s.chatOfList(key); ok {
				p.ZAddNX(ctx, s.workKey(shardOf(k)), redis.Z{Score: due, Member: k})
			}
		}
	})
}

// chatOfList extracts the chat key from "<prefix>:{<chat>}:pending" or
// "<prefix>:{<chat>}:outbox"; ok is false for any other key.
func (s *Store) chatOfList(key string) (string, bool) {
	inner, ok := strings.CutPrefix(key, s.prefix+":{")
	if !ok {
		return "", false
	}
	for _, suffix := range []string{"}:pending", "}:outbox"} {
		if chat, ok := strings.CutSuffix(inner, suffix); ok {
			_, err := botgw.ParseChatKey(chat)
			return chat, err == nil
		}
	}
	return "", false
}

// RunRepair runs Repair on a cluster (only a cluster needs it) every
// RepairInterval until ctx ends, logging what fails.
func (s *Store) RunRepair(ctx context.Context) {
	t := time.NewTicker(RepairInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !s.cluster {
			continue
		}
		if _, err := s.Repair(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("repair work marks", "err", err)
		}
	}
}

// Writable checks that Redis accepts writes, as Append needs: it answers
// and is not refusing them (out of memory under noeviction, a failed
// snapshot, a read-only replica). It writes a short-lived probe key in the
// slot of each work shard, so on a cluster it reaches the masters that
// hold the work marks.
func (s *Store) Writable(ctx context.Context) error {
	shards := workShards
	if !s.cluster {
		shards = 1
	}
	err := s.pipe(ctx, func(p redis.Pipeliner) {
		for i := range shards {
			p.Set(ctx, fmt.Sprintf("%s:ready:{%d}", s.prefix, i), "1", 10*time.Second)
		}
	})
	if err != nil {
		return fmt.Errorf("write to redis: %w", err)
	}
	return nil
}
