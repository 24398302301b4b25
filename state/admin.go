package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/botgw/botgw"
	"github.com/redis/go-redis/v9"
)

// Info reads a chat in one MULTI/EXEC (its keys share a slot), without its
// lease: the state, and the pending list's operator actions as of the
// same instant, so an action is either in the state or in Ops, never in
// both or neither.
func (s *Store) Info(ctx context.Context, k botgw.ChatKey) (botgw.ChatInfo, error) {
	ks, err := s.keys(k)
	if err != nil {
		return botgw.ChatInfo{}, fmt.Errorf("read chat %s: %w", k, err)
	}
	var (
		st      *redis.SliceCmd
		ttl     *redis.DurationCmd
		pending *redis.StringSliceCmd
		outbox  *redis.IntCmd
	)
	_, err = s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		st = p.HMGet(ctx, ks.state, "v", "b")
		ttl = p.PTTL(ctx, ks.state)
		pending = p.LRange(ctx, ks.pending, 0, -1)
		outbox = p.LLen(ctx, ks.outbox)
		return nil
	})
	if err != nil {
		return botgw.ChatInfo{}, fmt.Errorf("read chat %s: %w", k, err)
	}
	info := botgw.ChatInfo{Chat: k, TTL: max(ttl.Val(), 0), Pending: len(pending.Val()), Outbox: int(outbox.Val()),
		Ops: operatorOps(pending.Val())}
	if v, ok := st.Val()[0].(string); ok {
		if info.Version, err = strconv.ParseInt(v, 10, 64); err != nil {
			return botgw.ChatInfo{}, fmt.Errorf("read chat %s: state version %q: %w", k, v, err)
		}
		info.Blob = []byte(str(st.Val()[1]))
	}
	if info.Version == 0 && info.Pending == 0 && info.Outbox == 0 {
		return botgw.ChatInfo{}, fmt.Errorf("read chat %s: %w", k, botgw.ErrNotFound)
	}
	return info, nil
}

// operatorOps decodes the operator actions among a pending list's
// entries; the others are not decoded.
func operatorOps(raws []string) []botgw.Inbound {
	var ops []botgw.Inbound
	for _, raw := range raws {
		if !strings.Contains(raw, `"operator"`) {
			continue
		}
		var in botgw.Inbound
		if json.Unmarshal([]byte(raw), &in) == nil && in.Kind == botgw.KindOperator && in.Op != nil {
			ops = append(ops, in)
		}
	}
	return ops
}

// pausedAfter is pausedUntil once ops are applied in order.
func pausedAfter(pausedUntil time.Time, ops []botgw.Inbound) time.Time {
	for _, in := range ops {
		switch in.Op.Action {
		case botgw.OpPause:
			pausedUntil = in.Op.Until
		case botgw.OpResume:
			pausedUntil = time.Time{}
		}
	}
	return pausedUntil
}

// Reset deletes the chat's state. A turn in flight then fails its commit
// with ErrConflict and runs again on the empty state.
func (s *Store) Reset(ctx context.Context, k botgw.ChatKey) error {
	ks, err := s.keys(k)
	if err != nil {
		return fmt.Errorf("reset chat %s: %w", k, err)
	}
	if err := s.c.Del(ctx, ks.state).Err(); err != nil {
		return fmt.Errorf("reset chat %s: %w", k, err)
	}
	return nil
}

// Once sets "<prefix>:once:{name}" with NX and a ttl.
func (s *Store) Once(ctx context.Context, name string, ttl time.Duration) (bool, error) {
	ok, err := s.c.SetNX(ctx, s.onceKey(name), "1", ttl).Result()
	if err != nil {
		return false, fmt.Errorf("record once %s: %w", name, err)
	}
	return ok, nil
}

// Forget removes a name Once recorded, so the same name is new again.
func (s *Store) Forget(ctx context.Context, name string) error {
	if err := s.c.Del(ctx, s.onceKey(name)).Err(); err != nil {
		return fmt.Errorf("forget once %s: %w", name, err)
	}
	return nil
}

// List pages through chats with state using SCAN with COUNT n, so a page may
// hold more or fewer than n chats and, as SCAN goes, a chat may show up
// twice. The cursor is SCAN's; on a cluster it is "<master>-<cursor>", the
// masters taken in address order.
func (s *Store) List(ctx context.Context, cursor string, n int) ([]botgw.ChatKey, string, error) {
	var (
		keys []string
		next string
		err  error
	)
	if cc, ok := s.c.(*redis.ClusterClient); ok {
		keys, next, err = s.listCluster(ctx, cc, cursor, n)
	} else {
		keys, next, err = s.scan(ctx, s.c, cursor, n)
	}
	if err != nil {
		return nil, "", fmt.Errorf("list chats: %w", err)
	}
	chats := make([]botgw.ChatKey, 0, len(keys))
	for _, key := range keys {
		k, err := s.chatFromStateKey(key)
		if err != nil {
			s.log.Error("skipping bad state key", "key", key, "err", err)
			continue
		}
		chats = append(chats, k)
	}
	return chats, next, nil
}

// scan runs one SCAN step on c; cursor "" starts, "" returned means done.
func (s *Store) scan(ctx context.Context, c redis.Cmdable, cursor string, n int) ([]string, string, error) {
	var cur uint64
	if cursor != "" {
		var err error
		if cur, err = strconv.ParseUint(cursor, 10, 64); err != nil {
			return nil, "", fmt.Errorf("cursor: not one this listing handed out: %w", botgw.ErrInvalid)
		}
	}
	keys, next, err := c.Scan(ctx, cur, s.statePattern(), int64(max(n, 1))).Result()
	if err != nil || next == 0 {
		return keys, "", err
	}
	return keys, strconv.FormatUint(next, 10), nil
}

func (s *Store) listCluster(ctx context.Context, cc *redis.ClusterClient, cursor string, n int) ([]string, string, error) {
	node, cur := 0, ""
	if cursor != "" {
		i, c, ok := strings.Cut(cursor, "-")
		var err error
		if node, err = strconv.Atoi(i); !ok || err != nil || node < 0 {
			return nil, "", fmt.Errorf("cursor: not one this listing handed out: %w", botgw.ErrInvalid)
		}
		cur = c
	}
	masters, err := clusterMasters(ctx, cc)
	if err != nil {
		return nil, "", err
	}
	if node >= len(masters) {
		return nil, "", nil
	}
	keys, next, err := s.scan(ctx, masters[node], cur, n)
	switch {
	case err != nil:
		return nil, "", err
	case next != "":
		return keys, fmt.Sprintf("%d-%s", node, next), nil
	case node+1 < len(masters):
		return keys, fmt.Sprintf("%d-", node+1), nil
	}
	return keys, "", nil
}

// clusterMasters returns a client per master, sorted by address.
func clusterMasters(ctx context.Context, cc *redis.ClusterClient) ([]*redis.Client, error) {
	var (
		mu      sync.Mutex
		masters []*redis.Client
	)
	err := cc.ForEachMaster(ctx, func(_ context.Context, c *redis.Client) error {
		mu.Lock()
		defer mu.Unlock()
		masters = append(masters, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list cluster masters: %w", err)
	}
	slices.SortFunc(masters, func(a, b *redis.Client) int {
		return strings.Compare(a.Options().Addr, b.Options().Addr)
	})
	if len(masters) == 0 {
		return nil, errors.New("list cluster masters: none")
	}
	return masters, nil
}
