package state

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

// broadcastRetention is how long a finished or cancelled broadcast is kept:
// its progress stays readable and its id keeps refusing a second send.
const broadcastRetention = 7 * 24 * time.Hour

// Broadcasts keeps broadcasts in Redis: the definition and chat list, a
// cursor over the list leased to one replica at a time, and one bitmap per
// outcome indexed by the item's position. Every key of one broadcast shares
// the hash tag {bc:<id>}; the index of running broadcasts is a zset.
type Broadcasts struct{ s *Store }

// Broadcasts returns the broadcast view of the store.
func (s *Store) Broadcasts() Broadcasts { return Broadcasts{s} }

func (b Broadcasts) key(id, part string) string { return b.s.prefix + ":{bc:" + id + "}:" + part }
func (b Broadcasts) active() string             { return b.s.prefix + ":broadcasts" }

// outcomes are the bitmaps an item lands in once settled.
var outcomes = []string{"done", "failed", "cancelled"}

// Create stores bc and lists it as running, atomically for its own keys. If
// the id exists it changes nothing and reports created false with the
// stored total (idempotent).
func (b Broadcasts) Create(ctx context.Context, bc botgw.Broadcast) (created bool, total int, err error) {
	meta := b.key(bc.ID, "meta")
	running := true
	err = b.s.c.Watch(ctx, func(tx *redis.Tx) error {
		old, err := tx.HMGet(ctx, meta, "total", "state").Result()
		if err != nil {
			return err
		}
		if n, ok := old[0].(string); ok {
			total, _ = strconv.Atoi(n)
			running = old[1] == botgw.BroadcastRunning
			return nil
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			b.queueCreate(ctx, p, bc)
			return nil
		})
		created, total = err == nil, len(bc.Chats)
		return err
	}, meta)
	if err != nil {
		return false, 0, fmt.Errorf("create broadcast %s: %w", bc.ID, err)
	}
	if !running { // ended: answered, not started again
		return false, total, nil
	}
	if err := b.s.c.ZAddNX(ctx, b.active(), redis.Z{Score: float64(b.s.nowMs()), Member: bc.ID}).Err(); err != nil {
		return created, total, fmt.Errorf("list broadcast %s: %w", bc.ID, err)
	}
	return created, total, nil
}

func (b Broadcasts) queueCreate(ctx context.Context, p redis.Pipeliner, bc botgw.Broadcast) {
	list := b.key(bc.ID, "chats")
	p.Del(ctx, list)
	for i := 0; i < len(bc.Chats); i += 1000 {
		chunk := bc.Chats[i:min(i+1000, len(bc.Chats))]
		args := make([]any, len(chunk))
		for j, c := range chunk {
			args[j] = c
		}
		p.RPush(ctx, list, args...)
	}
	offer, _ := json.Marshal(bc.Event.Offer) // strings and a bool: cannot fail
	p.HSet(ctx, b.key(bc.ID, "meta"), "total", len(bc.Chats), "message", bc.Message,
		"event_text", bc.Event.Text, "event_key", bc.Event.Key, "respond", strconv.FormatBool(bc.Event.Respond),
		"offer", offer, "state", botgw.BroadcastRunning, "cursor", 0, "started_at", b.s.nowMs())
}

// Get reads a broadcast; botgw.ErrNotFound if there is none.
func (b Broadcasts) Get(ctx context.Context, id string) (botgw.BroadcastInfo, error) {
	var meta *redis.MapStringStringCmd
	counts := make([]*redis.IntCmd, len(outcomes))
	_, err := b.s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		meta = p.HGetAll(ctx, b.key(id, "meta"))
		for i, o := range outcomes {
			counts[i] = p.BitCount(ctx, b.key(id, o), nil)
		}
		return nil
	})
	if err != nil {
		return botgw.BroadcastInfo{}, fmt.Errorf("read broadcast %s: %w", id, err)
	}
	m := meta.Val()
	if len(m) == 0 {
		return botgw.BroadcastInfo{}, fmt.Errorf("broadcast %s: %w", id, botgw.ErrNotFound)
	}
	atoi := func(k string) int { n, _ := strconv.Atoi(m[k]); return n }
	msTime := func(k string) time.Time {
		if n, err := strconv.ParseInt(m[k], 10, 64); err == nil {
			return time.UnixMilli(n).UTC()
		}
		return time.Time{}
	}
	ev := botgw.Event{Text: m["event_text"], Key: m["event_key"], Respond: m["respond"] == "true"}
	_ = json.Unmarshal([]byte(m["offer"]), &ev.Offer) // absent for a broadcast stored without choices
	return botgw.BroadcastInfo{ID: id, Message: m["message"], State: m["state"], Total: atoi("total"), Cursor: atoi("cursor"),
		Event: ev,
		Done:  int(counts[0].Val()), Failed: int(counts[1].Val()), Cancelled: int(counts[2].Val()),
		StartedAt: msTime("started_at"), FinishedAt: msTime("finished_at")}, nil
}

// Chats returns the chat keys at positions [from, from+n).
func (b Broadcasts) Chats(ctx context.Context, id string, from, n int) ([]string, error) {
	chats, err := b.s.c.LRange(ctx, b.key(id, "chats"), int64(from), int64(from+n-1)).Result()
	if err != nil {
		return nil, fmt.Errorf("read broadcast %s chats: %w", id, err)
	}
	return chats, nil
}

// Running lists the broadcasts still running, oldest first.
func (b Broadcasts) Running(ctx context.Context) ([]string, error) {
	ids, err := b.s.c.ZRange(ctx, b.active(), 0, 99).Result()
	if err != nil {
		return nil, fmt.Errorf("list broadcasts: %w", err)
	}
	return ids, nil
}

// Mark records the outcome ("done", "failed", "cancelled") of item index.
// Marking twice is harmless.
func (b Broadcasts) Mark(ctx context.Context, id string, index int, outcome string) error {
	if err := b.s.c.SetBit(ctx, b.key(id, outcome), int64(index), 1).Err(); err != nil {
		return fmt.Errorf("mark broadcast %s item %d %s: %w", id, index, outcome, err)
	}
	return nil
}

// Cancel stops a running broadcast: what is not yet queued is never queued,
// and replies not yet sent are dropped. botgw.ErrNotFound if there is none.
func (b Broadcasts) Cancel(ctx context.Context, id string) error {
	return b.end(ctx, id, botgw.BroadcastCancelled)
}

// Finish marks a broadcast whose every item settled as finished.
func (b Broadcasts) Finish(ctx context.Context, id string) error {
	return b.end(ctx, id, botgw.BroadcastFinished)
}

// end moves a running broadcast to state, takes it off the running list
// and lets its keys expire after the retention.
func (b Broadcasts) end(ctx context.Context, id, state string) error {
	n, err := endScript.Run(ctx, b.s.c, []string{b.key(id, "meta")}, state, b.s.nowMs()).Int()
	if err != nil {
		return fmt.Errorf("end broadcast %s: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("broadcast %s: %w", id, botgw.ErrNotFound)
	}
	_, err = b.s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, part := range append([]string{"meta", "chats", "lease"}, outcomes...) {
			p.Expire(ctx, b.key(id, part), broadcastRetention)
		}
		p.ZRem(ctx, b.active(), id)
		return nil
	})
	if err != nil {
		return fmt.Errorf("end broadcast %s: %w", id, err)
	}
	return nil
}

// endScript sets state and finished_at once, if the broadcast is running.
// It returns 0 when the broadcast does not exist.
var endScript = redis.NewScript(`
if redis.call("EXISTS", KEYS[1]) == 0 then return 0 end
if redis.call("HGET", KEYS[1], "state") == "running" then
  redis.call("HSET", KEYS[1], "state", ARGV[1], "finished_at", ARGV[2])
end
return 1`)
