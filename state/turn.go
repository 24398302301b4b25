package state

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

// Append stores in at the tail of its chat's pending list and marks the chat
// as having work. The work mark is added only when absent (ZADD NX; on a
// cluster ZADD LT, see markLT): a chat under a steady stream of input
// still becomes due one visibility timeout after its first unhandled
// message. An empty in.ID is not deduplicated.
//
// Append returns nil exactly when the input is durable. On a single node
// the input and its mark are one script, so an error means nothing was
// stored. On a cluster the mark lives in another slot and goes second; if
// it fails the input is stored all the same (nil, logged), and Repair
// gives the chat its mark back. Input that can never be stored (a chat
// key or a field that does not encode) is botgw.ErrInvalidInput.
func (s *Store) Append(ctx context.Context, in botgw.Inbound) error {
	ks, err := s.keys(in.Chat)
	if err != nil {
		return fmt.Errorf("append to chat %s: %w: %w", in.Chat, botgw.ErrInvalidInput, err)
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("append to chat %s: encode inbound %s: %w: %w", in.Chat, in.ID, botgw.ErrInvalidInput, err)
	}
	now := s.nowMs()
	keys := []string{ks.ids + in.ID, ks.pending}
	waits := "0"
	if s.opts.MinReplicas > 0 {
		waits = "1"
	}
	args := []any{in.ID, now, ms(s.opts.DedupeTTL), raw, now + ms(s.opts.Visibility), ks.member, waits}
	if !s.cluster {
		n, err := s.run(ctx, appendScript, true, append(keys, ks.work), args...).Int()
		return appended(in, n, err)
	}
	n, err := s.run(ctx, appendScript, true, keys, args...).Int()
	if err == nil {
		if merr := s.markLT(ctx, ks, now+ms(s.opts.Visibility)); merr != nil {
			s.log.Warn("input stored without its work mark; the repair scan restores it", "chat", in.Chat, "err", merr)
		}
	}
	return appended(in, n, err)
}

// appended turns the append script's answer into Append's error.
func appended(in botgw.Inbound, n int, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("append to chat %s: %w", in.Chat, err)
	case n == 0:
		return fmt.Errorf("append inbound %s to chat %s: %w", in.ID, in.Chat, botgw.ErrDuplicate)
	}
	return nil
}

// Begin takes the chat's lease, or keeps it when lease is the token the
// caller holds (a lease that expired but was not taken by anyone is taken
// again under the same token), and reads the state, up to MaxBatch pending
// entries and the whole outbox in the same script. A pending or outbox entry
// that does not decode is removed and logged (see decodeList).
//
// When another worker holds the lease, Begin returns botgw.ErrBusy and
// makes the chat's work mark due when that lease runs out (busyUntil), so
// a chat whose holder died is taken as soon as its lease lets it, not one
// more visibility timeout later.
func (s *Store) Begin(ctx context.Context, k botgw.ChatKey, lease string) (botgw.Snapshot, error) {
	ks, err := s.keys(k)
	if err != nil {
		return botgw.Snapshot{}, fmt.Errorf("begin chat %s: %w", k, err)
	}
	res, err := beginScript.Run(ctx, s.c, []string{ks.lease, ks.state, ks.pending, ks.outbox},
		lease, newToken(), ms(s.opts.LeaseTTL), s.opts.MaxBatch).Result()
	if err != nil {
		return botgw.Snapshot{}, fmt.Errorf("begin chat %s: %w", k, err)
	}
	parts, ok := res.([]any)
	if !ok {
		s.busyUntil(ctx, k, ks, res)
		return botgw.Snapshot{}, fmt.Errorf("begin chat %s: %w", k, botgw.ErrBusy)
	}
	if len(parts) != 7 {
		return botgw.Snapshot{}, fmt.Errorf("begin chat %s: script returned %d values, want 7", k, len(parts))
	}
	return s.snapshot(ctx, k, ks, parts)
}

// busyUntil moves the chat's work mark, if it has one (ZADD XX: a mark
// its holder just cleared stays cleared), to when the holder's lease runs
// out, left being the lease's PTTL as the begin script read it. A claim
// had hidden the mark for a visibility timeout; should the holder be dead,
// the chat is due the moment its lease expires. Should this fail, the
// mark stays hidden as the claim left it: a later recovery, nothing lost.
func (s *Store) busyUntil(ctx context.Context, k botgw.ChatKey, ks chatKeys, left any) {
	n, ok := left.(int64)
	if !ok || n <= 0 {
		return
	}
	due := float64(s.nowMs() + n)
	if err := s.c.ZAddXX(ctx, ks.work, redis.Z{Score: due, Member: ks.member}).Err(); err != nil {
		s.log.Debug("make a busy chat due when its lease runs out", "chat", k, "err", err)
	}
}

// snapshot decodes the begin script's {token, version, blob, pttl, pending,
// outbox, pace}.
func (s *Store) snapshot(ctx context.Context, k botgw.ChatKey, ks chatKeys, parts []any) (botgw.Snapshot, error) {
	snap := botgw.Snapshot{Lease: str(parts[0]), TTL: s.ttlOf(parts[3])}
	if p, err := strconv.ParseInt(str(parts[6]), 10, 64); err == nil && p > 0 {
		snap.Paced = time.UnixMilli(p)
	}
	if v := str(parts[1]); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return botgw.Snapshot{}, fmt.Errorf("begin chat %s: state version %q: %w", k, v, err)
		}
		snap.Version, snap.Blob = n, []byte(str(parts[2]))
	}
	pending, _ := parts[4].([]any)
	outbox, _ := parts[5].([]any)
	snap.Pending = decodeList[botgw.Inbound](ctx, s, k, ks.pending, pending)
	snap.Outbox = decodeList[botgw.Outbound](ctx, s, k, ks.outbox, outbox)
	return snap, nil
}

// decodeList decodes the JSON entries read from list key. An entry that
// does not decode cannot be handled by anyone, and left in place it would
// wedge the chat (Commit consumes pending entries by count from the head;
// Finish never sees an empty outbox). So it is logged at Error level with
// its content and removed. The caller holds the chat's lease, and nothing
// else removes from these lists, so the entry is still there.
func decodeList[T any](ctx context.Context, s *Store, k botgw.ChatKey, key string, raws []any) []T {
	out := make([]T, 0, len(raws))
	for _, r := range raws {
		raw := str(r)
		var v T
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			s.dropCorrupt(ctx, k, key, raw, err)
			continue
		}
		out = append(out, v)
	}
	return out
}

func (s *Store) dropCorrupt(ctx context.Context, k botgw.ChatKey, key, raw string, err error) {
	// never the entry itself: it holds what the player wrote
	s.log.Error("dropping undecodable list entry", "chat", k, "key", key, "bytes", len(raw), "err", err)
	if err := s.c.LRem(ctx, key, 1, raw).Err(); err != nil {
		s.log.Error("drop undecodable list entry", "chat", k, "key", key, "err", err)
	}
	s.deadCorrupt(ctx, k, key, raw, err)
}

// Commit applies c in one script. A nil c.Blob deletes the state (its
// version starts again at 0); c.TTL 0 keeps the state without expiry.
// c.Records are numbered and kept for each stream sink in the same script
// (stream.go).
func (s *Store) Commit(ctx context.Context, k botgw.ChatKey, c botgw.Commit) error {
	ks, err := s.keys(k)
	if err != nil {
		return fmt.Errorf("commit chat %s: %w", k, err)
	}
	now := s.nowMs()
	keys := []string{ks.lease, ks.state, ks.pending, ks.outbox}
	if !s.cluster {
		keys = append(keys, s.indexKey())
	}
	keys, args, err := s.commitArgs(c, ks.member, now, keys)
	if err != nil {
		return fmt.Errorf("commit chat %s: %w", k, err)
	}
	var res *redis.Cmd
	switch {
	case s.cluster && s.opts.MinReplicas > 0:
		// WAIT must share the script's connection to the chat's primary:
		// the chat list's and the stream index's updates go after it, on
		// their own.
		res = s.run(ctx, commitScript, true, keys, args...)
		if err = res.Err(); err == nil {
			ierr := s.pipe(ctx, func(p redis.Pipeliner) {
				s.touchIndex(ctx, p, ks.member, c.Activity)
				s.indexUnits(ctx, p, ks.member, len(c.Records), now)
			})
			if ierr != nil {
				s.log.Warn("update the chat list or the stream's index", "err", ierr)
			}
		}
	case s.cluster:
		// The chat list and the stream's unit index are in other slots:
		// their updates go beside the script, in the same round trip.
		err = s.pipe(ctx, func(p redis.Pipeliner) {
			res = commitScript.EvalSha(ctx, p, keys, args...)
			s.touchIndex(ctx, p, ks.member, c.Activity)
			s.indexUnits(ctx, p, ks.member, len(c.Records), now)
		})
		if err != nil && res.Err() == nil { // only an index's update failed
			s.log.Warn("update the chat list or the stream's index", "err", err)
			err = nil
		}
	default:
		res = s.run(ctx, commitScript, true, keys, args...)
		err = res.Err()
	}
	if err = committed(k, c, res, err, s.log); err == nil {
		s.countDropped(len(c.Records))
	}
	return err
}

// committed turns the commit script's answer into Commit's error.
func committed(k botgw.ChatKey, c botgw.Commit, res *redis.Cmd, err error, log *slog.Logger) error {
	code, _ := res.Int()
	switch {
	case err != nil:
		return fmt.Errorf("commit chat %s: %w", k, err)
	case code == 1:
		return fmt.Errorf("commit chat %s: %w", k, botgw.ErrLeaseLost)
	case code == 2:
		return fmt.Errorf("commit chat %s at version %d: %w", k, c.Version, botgw.ErrConflict)
	case code == 3:
		log.Warn("update the chat list", "chat", k, "err", "the chat list's key refused the chat's score")
	}
	return nil
}

// commitArgs are the commit script's keys and ARGV; now (unix ms) dates
// the state's expiry, which the state hash keeps for Begin, and the
// stream's records.
func (s *Store) commitArgs(c botgw.Commit, member string, now int64, keys []string) ([]string, []any, error) {
	store := "1"
	if c.Blob == nil {
		store = "0"
	}
	expires := int64(0)
	if c.TTL > 0 {
		expires = now + ms(c.TTL)
	}
	lag := any(ms(indexLag))
	if s.cluster { // no chat list among the keys (commit.lua, ARGV[13])
		lag = ""
	}
	args := []any{c.Lease, c.Version, store, c.Blob, ms(c.TTL), max(c.Consumed, 0), "0", "", 0, 0, expires, member, lag}
	if a := c.Activity; a != nil {
		args[6], args[7], args[8], args[9] = "1", a.Preview, a.At.UnixMilli(), pausedMs(a.PausedUntil)
	}
	keys, args, err := s.streamArgs(member, c.Version, c.Records, now, keys, args)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range c.Outbox {
		raw, err := json.Marshal(m)
		if err != nil {
			return nil, nil, fmt.Errorf("encode outbound %s: %w", m.ID, err)
		}
		args = append(args, raw)
	}
	return keys, args, nil
}

// Delivered removes the outbox entries ids. It does not check the lease:
// the replies reached the channel, so removing them is right whoever holds
// the chat now, and spares the holder a duplicate send. Removing an absent
// id is no error. (After a turn, Finish removes its delivered replies in
// the same round trip; Delivered is for the paths that stop early.)
func (s *Store) Delivered(ctx context.Context, k botgw.ChatKey, _ string, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	ks, err := s.keys(k)
	if err != nil {
		return fmt.Errorf("mark outbound %v of chat %s delivered: %w", ids, k, err)
	}
	if err := s.run(ctx, deliveredScript, true, []string{ks.outbox}, stringsToAny(ids)...).Err(); err != nil {
		return fmt.Errorf("mark outbound %v of chat %s delivered: %w", ids, k, err)
	}
	return nil
}

// Progress records that the platform took the first sent parts of the
// split outbox entry id. Like Delivered it does not check the lease: the
// parts reached the channel whoever holds the chat now.
func (s *Store) Progress(ctx context.Context, k botgw.ChatKey, id string, sent int) error {
	ks, err := s.keys(k)
	if err != nil {
		return fmt.Errorf("record progress of outbound %s of chat %s: %w", id, k, err)
	}
	if err := s.run(ctx, progressScript, true, []string{ks.outbox}, id, sent).Err(); err != nil {
		return fmt.Errorf("record progress of outbound %s of chat %s: %w", id, k, err)
	}
	return nil
}

// newToken is a fresh lease token: 16 random bytes, hex.
func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// ttlOf converts the begin script's expiry to the state's remaining TTL:
// a string is the unix ms the state expires at ("0": never), an integer a
// PTTL reply (-2 absent, -1 no expiry) for state written before the hash
// kept its expiry.
func (s *Store) ttlOf(v any) time.Duration {
	var left int64
	switch v := v.(type) {
	case int64:
		left = v
	case string:
		if at, _ := strconv.ParseInt(v, 10, 64); at > 0 {
			left = max(at-s.nowMs(), 1)
		}
	}
	return time.Duration(max(left, 0)) * time.Millisecond
}
