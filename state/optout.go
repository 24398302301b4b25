package state

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

// Opt-outs (botgw.OptOuts): one string per chat, "<prefix>:{<chat>}:optout"
// holding the unix ms of the opt-out, in the chat's slot beside its state
// but never deleted with it; plus a zset of every opted-out chat (scored by
// that time) for the admin list, in a slot of its own.

var _ botgw.OptOuts = (*Store)(nil)

func (s *Store) optOutKey(k botgw.ChatKey) (string, error) {
	ks, err := s.keys(k)
	if err != nil {
		return "", err
	}
	return s.prefix + ":{" + ks.member + "}:optout", nil
}

func (s *Store) optOutIndex() string { return s.prefix + ":optouts:{optouts}" }

// OptOut implements botgw.OptOuts.
func (s *Store) OptOut(ctx context.Context, k botgw.ChatKey, at time.Time) (bool, error) {
	key, err := s.optOutKey(k)
	if err != nil {
		return false, fmt.Errorf("opt out %s: %w", k, err)
	}
	ms := at.UnixMilli()
	var set *redis.BoolCmd
	err = s.pipe(ctx, func(p redis.Pipeliner) {
		set = p.SetNX(ctx, key, ms, 0)
		p.ZAddNX(ctx, s.optOutIndex(), redis.Z{Score: float64(ms), Member: k.String()})
	})
	if err != nil {
		return false, fmt.Errorf("opt out %s: %w", k, err)
	}
	return set.Val(), nil
}

// OptIn implements botgw.OptOuts.
func (s *Store) OptIn(ctx context.Context, k botgw.ChatKey) (bool, error) {
	key, err := s.optOutKey(k)
	if err != nil {
		return false, fmt.Errorf("opt in %s: %w", k, err)
	}
	var del *redis.IntCmd
	err = s.pipe(ctx, func(p redis.Pipeliner) {
		del = p.Del(ctx, key)
		p.ZRem(ctx, s.optOutIndex(), k.String())
	})
	if err != nil {
		return false, fmt.Errorf("opt in %s: %w", k, err)
	}
	return del.Val() > 0, nil
}

// OptedOut implements botgw.OptOuts.
func (s *Store) OptedOut(ctx context.Context, k botgw.ChatKey) (time.Time, error) {
	key, err := s.optOutKey(k)
	if err != nil {
		return time.Time{}, fmt.Errorf("read opt-out %s: %w", k, err)
	}
	v, err := s.c.Get(ctx, key).Result()
	if errors.Is(err, redis.Nil) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read opt-out %s: %w", k, err)
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("read opt-out %s: %q: %w", k, v, err)
	}
	return time.UnixMilli(ms).UTC(), nil
}

// OptedOutChats implements botgw.OptOuts.
func (s *Store) OptedOutChats(ctx context.Context, offset, n int) ([]botgw.ChatKey, error) {
	members, err := s.c.ZRange(ctx, s.optOutIndex(), int64(offset), int64(offset+n-1)).Result()
	if err != nil {
		return nil, fmt.Errorf("list opted-out chats: %w", err)
	}
	out := make([]botgw.ChatKey, 0, len(members))
	for _, m := range members {
		if k, err := botgw.ParseChatKey(m); err == nil {
			out = append(out, k)
		}
	}
	return out, nil
}
