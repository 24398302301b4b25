package state

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

// The conversation stream's records wait in Redis until each sink took
// them. The commit script appends a commit's records, in the same atomic
// step as the state change, to one list per sink and stream unit:
//
//	<prefix>:stream:<sink>:{<unit>}       records, oldest first, as JSON with "ms" and "k"
//	<prefix>:stream:<sink>:seq:{<unit>}   hash: chat -> "<last seq>:<ms>"
//
// The relay numbers them as it reads them (lua/streamnext.lua): a chat's
// records get the seqs after the last one the sink acknowledged, which the
// same script notes in the sink's seq hash when it removes them. So the
// count lives beside the records it counts, whatever happens to the
// chat's state (reset, expiry), and a commit reads nothing for it.
//
// A unit gathers many chats, so the relay reads and trims up to a thousand
// records of many chats with one script, and a chat's records keep their
// commit order inside it. On a single node there is one unit (tag "0"), so
// a read takes whatever waits, whichever chats it belongs to. On a cluster
// a unit is a chat's hash slot (its key's tag is a string that hashes to
// that slot), so the lists live in the slot of the chats they hold; there
// the units are split into StreamGroups groups, and a zset per group
// (<prefix>:stream:<sink>:lists:{<g>}) lists the units with records,
// updated in the commit's pipeline.

// StreamGroups is the number of relay groups on a cluster: each has its
// own lease, so replicas share the relaying.
const StreamGroups = workShards

// StreamGroupCount is the number of relay groups, numbered from 0: one on
// a single node (its one unit), StreamGroups on a cluster.
func (s *Store) StreamGroupCount() int {
	if s.cluster {
		return StreamGroups
	}
	return 1
}

// StreamMode tells the commit how a sink is doing.
type StreamMode int32

const (
	StreamOK   StreamMode = iota // the sink keeps up
	StreamFull                   // max_pending reached: new records are not kept
)

// StreamOptions configure the conversation stream.
type StreamOptions struct {
	Sinks []string // sink names ("webhook", "kafka"); none: records are dropped
}

// streamState is the store's per-sink stream mode, and the records it
// did not keep while a sink was full.
type streamState struct {
	sinks   []string
	modes   []atomic.Int32
	dropped []atomic.Int64
}

// StreamDropped is the number of sink's records this store's commits did
// not keep because the sink was full (max_pending).
func (s *Store) StreamDropped(sink string) int64 {
	for i, n := range s.stream.sinks {
		if n == sink {
			return s.stream.dropped[i].Load()
		}
	}
	return 0
}

// SetStreamMode records how sink is doing; unknown sinks are ignored.
func (s *Store) SetStreamMode(sink string, m StreamMode) {
	for i, n := range s.stream.sinks {
		if n == sink {
			s.stream.modes[i].Store(int32(m))
		}
	}
}

// unit is the stream unit of a chat: its tag and relay group.
func (s *Store) unit(member string) (tag string, group int) {
	if s.cluster {
		slot := tagSlot(member)
		return slotTag(slot), int(slot) % StreamGroups
	}
	return "0", 0
}

func (s *Store) streamList(sink, tag string) string {
	return s.prefix + ":stream:" + sink + ":{" + tag + "}"
}

func (s *Store) seqHash(sink, tag string) string {
	return s.prefix + ":stream:" + sink + ":seq:{" + tag + "}"
}

func (s *Store) unitIndex(sink string, group int) string {
	return fmt.Sprintf("%s:stream:%s:lists:{%d}", s.prefix, sink, group)
}

func (s *Store) relayLease(sink string, group int) string {
	return fmt.Sprintf("%s:stream:%s:lease:{%d}", s.prefix, sink, group)
}

// streamArgs appends the commit's stream keys (the lists of the sinks
// not full) and ARGV[14..16+R] (stream.lua) to keys and args; without
// records or a list to keep them just "0". now dates the records.
func (s *Store) streamArgs(member string, version int64, recs []botgw.StreamRecord, now int64, keys []string, args []any) ([]string, []any, error) {
	tag, _ := s.unit(member)
	k0, lists := len(keys)+1, 0
	for i, sink := range s.stream.sinks {
		if len(recs) > 0 && StreamMode(s.stream.modes[i].Load()) != StreamFull {
			keys, lists = append(keys, s.streamList(sink, tag)), lists+1
		}
	}
	if lists == 0 {
		return keys, append(args, "0"), nil
	}
	args = append(args, len(recs), k0, lists)
	// "k" (the chat's version before the commit, the record's place in
	// it) makes every stored record unique, so the relay's check of the
	// list's head before removing a read cannot mistake one for another.
	prefix := `{"ms":` + strconv.FormatInt(now, 10) + `,"k":"` + strconv.FormatInt(version, 10) + "."
	for i, r := range recs {
		r.Seq, r.ID = 0, ""
		raw, err := json.Marshal(r)
		if err != nil {
			return nil, nil, fmt.Errorf("encode stream record: %w", err)
		}
		args = append(args, prefix+strconv.Itoa(i)+`",`+string(raw[1:]))
	}
	return keys, args, nil
}

// countDropped counts the records of a commit that full sinks did not
// keep.
func (s *Store) countDropped(recs int) {
	for i := range s.stream.sinks {
		if recs > 0 && StreamMode(s.stream.modes[i].Load()) == StreamFull {
			s.stream.dropped[i].Add(int64(recs))
		}
	}
}

// indexUnits queues, on a cluster, the listing of the chat's unit in each
// kept sink's group index (beside the commit script: another slot).
func (s *Store) indexUnits(ctx context.Context, p redis.Pipeliner, member string, recs int, now int64) {
	if !s.cluster || recs == 0 {
		return
	}
	tag, group := s.unit(member)
	for i, sink := range s.stream.sinks {
		if StreamMode(s.stream.modes[i].Load()) != StreamFull {
			p.ZAddNX(ctx, s.unitIndex(sink, group), redis.Z{Score: float64(now), Member: tag})
		}
	}
}

// StreamUnits returns up to n units of group with records of sink, oldest
// listed first on a cluster; on a single node the one unit.
func (s *Store) StreamUnits(ctx context.Context, sink string, group, n int) ([]string, error) {
	if !s.cluster {
		return []string{"0"}, nil
	}
	tags, err := s.c.ZRange(ctx, s.unitIndex(sink, group), 0, int64(n-1)).Result()
	if err != nil {
		return nil, fmt.Errorf("list stream units of %s group %d: %w", sink, group, err)
	}
	return tags, nil
}

// unlistUnit drops an empty unit from its group's index, then lists it
// again if a commit added records meanwhile (its ZADD NX may have come
// before the ZREM).
func (s *Store) unlistUnit(ctx context.Context, sink, tag string) {
	_, group := s.groupOfTag(tag)
	idx := s.unitIndex(sink, group)
	if err := s.c.ZRem(ctx, idx, tag).Err(); err != nil {
		return // listed still: the relay reads it once more
	}
	head, err := s.c.LIndex(ctx, s.streamList(sink, tag), 0).Result()
	if err != nil { // empty (redis.Nil) or unknown: an error keeps it listed
		if err != redis.Nil {
			s.c.ZAddNX(ctx, idx, redis.Z{Score: float64(s.nowMs()), Member: tag})
		}
		return
	}
	_, at, _ := DecodeStreamRecord(head)
	s.c.ZAddNX(ctx, idx, redis.Z{Score: float64(at.UnixMilli()), Member: tag})
}

func (s *Store) groupOfTag(tag string) (uint16, int) {
	slot := tagSlot(tag)
	return slot, int(slot) % StreamGroups
}

// StreamLease takes or keeps sink's relay lease of group for ttl.
func (s *Store) StreamLease(ctx context.Context, sink string, group int, token string, ttl time.Duration) (bool, error) {
	n, err := leaseScript.Run(ctx, s.c, []string{s.relayLease(sink, group)}, token, ms(ttl)).Int()
	if err != nil {
		return false, fmt.Errorf("take relay lease %s/%d: %w", sink, group, err)
	}
	return n == 1, nil
}

// StreamReleaseLease gives the lease back if token still holds it.
func (s *Store) StreamReleaseLease(ctx context.Context, sink string, group int, token string) error {
	if err := releaseScript.Run(ctx, s.c, []string{s.relayLease(sink, group)}, token).Err(); err != nil {
		return fmt.Errorf("release relay lease %s/%d: %w", sink, group, err)
	}
	return nil
}

// StreamPruneSeqs forgets the seq hash entries (one per sink and chat) of
// chats whose last record is older than before (stream.seq_ttl) and
// returns how many it removed.
func (s *Store) StreamPruneSeqs(ctx context.Context, before time.Time) (int, error) {
	n := 0
	err := s.eachMaster(ctx, func(c redis.UniversalClient) error {
		for _, sink := range s.stream.sinks {
			iter := c.Scan(ctx, 0, globEscape(s.prefix+":stream:"+sink+":seq:{")+"*}", 100).Iterator()
			for iter.Next(ctx) {
				removed, err := s.pruneSeqHash(ctx, iter.Val(), before.UnixMilli())
				if err != nil {
					return err
				}
				n += removed
			}
			if err := iter.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("prune stream counters: %w", err)
	}
	return n, nil
}

func (s *Store) pruneSeqHash(ctx context.Context, key string, before int64) (int, error) {
	var old []string
	iter := s.c.HScan(ctx, key, 0, "", 100).Iterator()
	for iter.Next(ctx) {
		field := iter.Val()
		if !iter.Next(ctx) {
			break
		}
		_, at, _ := strings.Cut(iter.Val(), ":")
		if ms, err := strconv.ParseInt(at, 10, 64); err == nil && ms < before {
			old = append(old, field)
		}
	}
	if err := iter.Err(); err != nil || len(old) == 0 {
		return 0, err
	}
	return len(old), s.c.HDel(ctx, key, old...).Err()
}

// eachMaster runs fn on the node, or on each master of a cluster.
func (s *Store) eachMaster(ctx context.Context, fn func(redis.UniversalClient) error) error {
	cc, ok := s.c.(*redis.ClusterClient)
	if !ok {
		return fn(s.c)
	}
	masters, err := clusterMasters(ctx, cc)
	if err != nil {
		return err
	}
	for _, m := range masters {
		if err := fn(m); err != nil {
			return err
		}
	}
	return nil
}
