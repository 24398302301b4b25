package state

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

var _ botgw.ChatIndex = (*Store)(nil)

// The chat list: a zset of chat keys scored by last activity (unix ms),
// updated by the commit script (on a cluster, where the zset is one key in
// its own slot, in the commit's pipeline), and the fields "p" (preview),
// "a" (activity) and "u" (paused until) that the commit script writes into
// the chat's state hash. A chat whose state expired or was reset is dropped
// from the zset when a listing meets it.
//
// On a single node a busy chat's score moves only once its activity is
// indexLag past it ("i" in the state hash keeps the score it has): the
// list's order may lag that much, less than the "seconds ago" it shows,
// while each chat's own "a", which the list shows, is exact.

// indexLag is how far a chat's score in the chat list may lag its activity.
const indexLag = time.Second

// maxExamined bounds the chats one filtered page looks at.
const maxExamined = 2000

func (s *Store) indexKey() string { return s.prefix + ":chats:{chats}" }

// touchIndex queues the chat list's update for a commit with activity.
func (s *Store) touchIndex(ctx context.Context, p redis.Pipeliner, member string, a *botgw.ChatActivity) {
	if a == nil {
		return
	}
	p.ZAdd(ctx, s.indexKey(), redis.Z{Score: float64(a.At.UnixMilli()), Member: member})
}

func pausedMs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// indexCursor is "<score>:<member>" of the last chat examined.
type indexCursor struct {
	score  int64
	member string
}

func parseIndexCursor(c string) (indexCursor, error) {
	if c == "" {
		return indexCursor{score: -1}, nil
	}
	sc, member, ok := strings.Cut(c, ":")
	n, err := strconv.ParseInt(sc, 10, 64)
	if !ok || err != nil || n < 0 || member == "" {
		return indexCursor{}, fmt.Errorf("cursor %q: %w", c, botgw.ErrBadCursor)
	}
	return indexCursor{n, member}, nil
}

// Chats pages the chat list newest first, filtered by q.
func (s *Store) Chats(ctx context.Context, q botgw.ChatQuery) ([]botgw.ChatSummary, string, error) {
	cur, err := parseIndexCursor(q.Cursor)
	if err != nil {
		return nil, "", fmt.Errorf("list chats: %w", err)
	}
	limit, examined, done := max(q.Limit, 1), 0, false
	var keys []botgw.ChatKey
	for !done && examined < maxExamined && len(keys) < limit {
		zs, err := s.indexPage(ctx, cur, 200)
		if err != nil {
			return nil, "", fmt.Errorf("list chats: %w", err)
		}
		done = len(zs) == 0
		for _, z := range zs {
			examined++
			cur = indexCursor{int64(z.Score), str(z.Member)}
			if k, err := botgw.ParseChatKey(cur.member); err == nil && matches(cur.member, q) {
				keys = append(keys, k)
			}
			if len(keys) == limit {
				break
			}
		}
	}
	next := ""
	if !done {
		next = fmt.Sprintf("%d:%s", cur.score, cur.member)
	}
	out, err := s.summaries(ctx, keys)
	if err != nil {
		return nil, "", fmt.Errorf("list chats: %w", err)
	}
	return out, next, nil
}

// summaries reads the list fields of keys from their state hashes, with
// the pause or resume an operator asked for and no turn applied yet (read
// first: a turn applying it in between leaves it in the state read next);
// a chat whose state is gone is dropped from the index.
func (s *Store) summaries(ctx context.Context, keys []botgw.ChatKey) ([]botgw.ChatSummary, error) {
	cmds := make([]*redis.SliceCmd, len(keys))
	pending := make([]*redis.StringSliceCmd, len(keys))
	err := s.pipe(ctx, func(p redis.Pipeliner) {
		for i, k := range keys {
			ks, _ := s.keys(k)
			pending[i] = p.LRange(ctx, ks.pending, 0, -1)
			cmds[i] = p.HMGet(ctx, ks.state, "p", "a", "u")
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]botgw.ChatSummary, 0, len(keys))
	var gone []any
	for i, c := range cmds {
		v := c.Val()
		at, err := strconv.ParseInt(str(v[1]), 10, 64)
		if err != nil {
			gone = append(gone, keys[i].String())
			continue
		}
		sum := botgw.ChatSummary{Chat: keys[i], ChatActivity: botgw.ChatActivity{At: time.UnixMilli(at), Preview: str(v[0])}}
		if u, _ := strconv.ParseInt(str(v[2]), 10, 64); u > 0 {
			sum.PausedUntil = time.UnixMilli(u)
		}
		sum.PausedUntil = pausedAfter(sum.PausedUntil, operatorOps(pending[i].Val()))
		out = append(out, sum)
	}
	if len(gone) > 0 {
		if err := s.c.ZRem(ctx, s.indexKey(), gone...).Err(); err != nil {
			s.log.Warn("drop expired chats from the chat list", "err", err)
		}
	}
	return out, nil
}

func matches(member string, q botgw.ChatQuery) bool {
	return (q.Channel == "" || strings.HasPrefix(member, q.Channel+":")) && strings.HasPrefix(member, q.Prefix)
}

// indexPage reads up to n index entries after cur, newest first. Entries
// of equal score come in descending member order, so those at cur's score
// with a member at or above cur's were returned already.
func (s *Store) indexPage(ctx context.Context, cur indexCursor, n int) ([]redis.Z, error) {
	maxScore := "+inf"
	if cur.score >= 0 {
		maxScore = strconv.FormatInt(cur.score, 10)
	}
	zs, err := s.c.ZRevRangeByScoreWithScores(ctx, s.indexKey(), &redis.ZRangeBy{Max: maxScore, Min: "-inf", Count: int64(n)}).Result()
	if err != nil {
		return nil, err
	}
	out := zs[:0]
	for _, z := range zs {
		m, _ := z.Member.(string)
		if cur.score >= 0 && int64(z.Score) == cur.score && m >= cur.member {
			continue
		}
		out = append(out, z)
	}
	if len(out) == 0 && len(zs) == n { // a page of equal scores, all seen
		return s.indexPage(ctx, indexCursor{cur.score - 1, "\xff"}, n)
	}
	return out, nil
}
