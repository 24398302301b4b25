package whatsapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

// The backlog waiting for its replies: one hash, <prefix>:whatsapp:backlog,
// a field per chat key holding its held JSON. Only the replica holding the
// session writes it, so a read-modify-write needs no script.

// noteBacklog adds in to its chat's backlog when it is old, and clears
// the chat's backlog when it is live (the reply to it covers the rest).
func (s *shared) noteBacklog(ctx context.Context, in botgw.Inbound) error {
	k, field := s.key("backlog"), in.Chat.String()
	if !in.Backlog {
		if err := s.rdb.HDel(ctx, k, field).Err(); err != nil {
			return fmt.Errorf("clear backlog of %s: %w", in.Chat, err)
		}
		return nil
	}
	h := held{Oldest: in.At}
	v, err := s.rdb.HGet(ctx, k, field).Result()
	switch {
	case err == nil:
		if err := json.Unmarshal([]byte(v), &h); err != nil {
			h = held{Oldest: in.At}
		}
	case !errors.Is(err, redis.Nil):
		return fmt.Errorf("read backlog of %s: %w", in.Chat, err)
	}
	h.N, h.Last = h.N+1, in.ID
	if in.At.Before(h.Oldest) {
		h.Oldest = in.At
	}
	b, _ := json.Marshal(h)
	if err := s.rdb.HSet(ctx, k, field, b).Err(); err != nil {
		return fmt.Errorf("record backlog of %s: %w", in.Chat, err)
	}
	return nil
}

// backlogChats is how many chats wait for a backlog reply.
func (s *shared) backlogChats(ctx context.Context) (int64, error) {
	n, err := s.rdb.HLen(ctx, s.key("backlog")).Result()
	if err != nil {
		return 0, fmt.Errorf("read backlog: %w", err)
	}
	return n, nil
}

// takeBacklog returns and removes every chat's backlog.
func (s *shared) takeBacklog(ctx context.Context) (map[botgw.ChatKey]*held, error) {
	k := s.key("backlog")
	var all *redis.MapStringStringCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		all = p.HGetAll(ctx, k)
		p.Del(ctx, k)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("take backlog: %w", err)
	}
	out := map[botgw.ChatKey]*held{}
	for field, v := range all.Val() {
		chat, err := botgw.ParseChatKey(field)
		h := &held{}
		if err != nil || json.Unmarshal([]byte(v), h) != nil {
			continue
		}
		out[chat] = h
	}
	return out, nil
}
