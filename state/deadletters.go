package state

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

var _ botgw.DeadLetters = (*Store)(nil)

var (
	//go:embed lua/deadletter.lua
	deadLetterSrc string
	//go:embed lua/takedead.lua
	takeDeadSrc string
	//go:embed lua/forgetdead.lua
	forgetDeadSrc string // the forget function both scripts call

	deadLetterScript = redis.NewScript(forgetDeadSrc + deadLetterSrc)
	takeDeadScript   = redis.NewScript(forgetDeadSrc + takeDeadSrc)
)

// Dead letters live in three keys sharing the hash tag {deadletters}, so
// the scripts run on one cluster slot: an index zset whose members are the
// ids (all scored 0: ids start with the zero-padded time, so the
// lexicographic order is the time order), a hash of id → JSON, and a hash
// of counts by "<channel>|<kind>" for the gauge.
func (s *Store) deadKeys() []string {
	base := s.prefix + ":deadletters:{deadletters}:"
	return []string{base + "index", base + "data", base + "counts"}
}

// deadID is "<13-digit unix ms><8 hex>": sortable by time, URL-safe.
func deadID(at time.Time) string {
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%013d%s", at.UnixMilli(), hex.EncodeToString(b))
}

// ValidDeadLetterID reports whether id has the form the store assigns.
func ValidDeadLetterID(id string) bool {
	if len(id) != 21 {
		return false
	}
	for i, r := range id {
		digit := r >= '0' && r <= '9'
		if !digit && (i < 13 || r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// cutoff is the smallest id still within retention.
func (s *Store) deadCutoff() string {
	return fmt.Sprintf("%013d", s.now().Add(-s.opts.DeadLetterTTL).UnixMilli())
}

// AddDeadLetter stores d (dropping entries past Options.DeadLetterTTL). An
// entry that has an id already (taken and put back) keeps it.
func (s *Store) AddDeadLetter(ctx context.Context, d botgw.DeadLetter) (string, error) {
	if d.At.IsZero() {
		d.At = s.now()
	}
	if !ValidDeadLetterID(d.ID) { // a retried entry put back keeps its id
		d.ID = deadID(d.At)
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return "", fmt.Errorf("add dead letter for %s: encode: %w", d.Chat, err)
	}
	field := d.Channel() + "|" + d.Kind
	if err := deadLetterScript.Run(ctx, s.c, s.deadKeys(), s.deadCutoff(), d.ID, raw, field).Err(); err != nil {
		return "", fmt.Errorf("add dead letter for %s: %w", d.Chat, err)
	}
	return d.ID, nil
}

// ListDeadLetters pages newest first; the cursor is the last id returned.
func (s *Store) ListDeadLetters(ctx context.Context, cursor string, n int) ([]botgw.DeadLetter, string, error) {
	if cursor != "" && !ValidDeadLetterID(cursor) {
		return nil, "", fmt.Errorf("list dead letters: cursor %q: not a dead-letter id", cursor)
	}
	keys := s.deadKeys()
	if err := deadLetterScript.Run(ctx, s.c, keys, s.deadCutoff(), "", "", "").Err(); err != nil {
		return nil, "", fmt.Errorf("list dead letters: %w", err)
	}
	max := "+"
	if cursor != "" {
		max = "(" + cursor
	}
	ids, err := s.c.ZRevRangeByLex(ctx, keys[0], &redis.ZRangeBy{Max: max, Min: "-", Count: int64(n)}).Result()
	if err != nil || len(ids) == 0 {
		return []botgw.DeadLetter{}, "", wrapNil("list dead letters", err)
	}
	raws, err := s.c.HMGet(ctx, keys[1], ids...).Result()
	if err != nil {
		return nil, "", fmt.Errorf("list dead letters: %w", err)
	}
	out := make([]botgw.DeadLetter, 0, len(raws))
	for _, r := range raws {
		var d botgw.DeadLetter
		if json.Unmarshal([]byte(str(r)), &d) == nil {
			out = append(out, d)
		}
	}
	next := ""
	if len(ids) == n {
		next = ids[len(ids)-1]
	}
	return out, next, nil
}

// TakeDeadLetter removes and returns one entry; ErrNotFound if absent.
func (s *Store) TakeDeadLetter(ctx context.Context, id string) (botgw.DeadLetter, error) {
	raw, err := takeDeadScript.Run(ctx, s.c, s.deadKeys(), id).Text()
	if errors.Is(err, redis.Nil) {
		return botgw.DeadLetter{}, fmt.Errorf("dead letter %s: %w", id, botgw.ErrNotFound)
	}
	if err != nil {
		return botgw.DeadLetter{}, fmt.Errorf("take dead letter %s: %w", id, err)
	}
	var d botgw.DeadLetter
	if err := json.Unmarshal([]byte(raw), &d); err != nil {
		return botgw.DeadLetter{}, fmt.Errorf("take dead letter %s: decode: %w", id, err)
	}
	return d, nil
}

// DeadLetterCounts reads the counts hash.
func (s *Store) DeadLetterCounts(ctx context.Context) (map[[2]string]int, error) {
	m, err := s.c.HGetAll(ctx, s.deadKeys()[2]).Result()
	if err != nil {
		return nil, fmt.Errorf("count dead letters: %w", err)
	}
	out := make(map[[2]string]int, len(m))
	for f, v := range m {
		ch, kind, _ := strings.Cut(f, "|")
		var n int
		fmt.Sscan(v, &n)
		out[[2]string{ch, kind}] = n
	}
	return out, nil
}

// attemptsKey counts failed delivery rounds per outbox entry of a chat. It
// shares the chat's hash tag and expires with the dead-letter retention.
func (s *Store) attemptsKey(k botgw.ChatKey) (string, error) {
	ks, err := s.keys(k)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(ks.state, "state") + "attempts", nil
}

// DeliveryFailed counts one failed delivery round of outbox entry id.
func (s *Store) DeliveryFailed(ctx context.Context, k botgw.ChatKey, id string) (int, error) {
	key, err := s.attemptsKey(k)
	if err != nil {
		return 0, fmt.Errorf("count delivery attempt of %s: %w", k, err)
	}
	var n *redis.IntCmd
	err = s.pipe(ctx, func(p redis.Pipeliner) {
		n = p.HIncrBy(ctx, key, id, 1)
		p.PExpire(ctx, key, s.opts.DeadLetterTTL)
	})
	if err != nil {
		return 0, fmt.Errorf("count delivery attempt of %s: %w", k, err)
	}
	return int(n.Val()), nil
}

// DeliveryDone forgets the failed rounds of outbox entry id.
func (s *Store) DeliveryDone(ctx context.Context, k botgw.ChatKey, id string) error {
	key, err := s.attemptsKey(k)
	if err == nil {
		err = s.c.HDel(ctx, key, id).Err()
	}
	if err != nil {
		return fmt.Errorf("forget delivery attempts of %s: %w", k, err)
	}
	return nil
}

// wrapNil wraps err with what unless it is nil or redis.Nil.
func wrapNil(what string, err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// deadCorrupt keeps an undecodable pending or outbox entry as a dead
// letter, so an operator sees it rather than it vanishing.
func (s *Store) deadCorrupt(ctx context.Context, k botgw.ChatKey, key, raw string, err error) {
	kind := botgw.DeadInput
	if strings.HasSuffix(key, ":outbox") {
		kind = botgw.DeadReply
	}
	d := botgw.DeadLetter{Chat: k.String(), Kind: kind, Reason: "cannot be decoded: " + err.Error(), Text: raw}
	if _, err := s.AddDeadLetter(ctx, d); err != nil {
		s.log.Error("keep undecodable list entry as a dead letter", "chat", k, "err", err)
	}
}
