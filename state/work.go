package state

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/botgw/botgw"
	"github.com/redis/go-redis/v9"
)

// A chat's work mark is its member in one of the work zsets, scored with the
// unix ms at which other replicas may take the chat (a delay queue with a
// visibility timeout). Append adds it, Due claims and re-hides it, Finish
// clears it once the chat is idle.

// markLT sets the chat's work mark to become due at unix ms due, unless
// the chat has one due sooner. That is ZADD NX for every mark but the one
// a finishing worker parks beyond any Append's (finishCluster): an Append
// moves that one, which tells the worker that input came.
func (s *Store) markLT(ctx context.Context, ks chatKeys, due int64) error {
	return s.c.ZAddLT(ctx, ks.work, redis.Z{Score: float64(due), Member: ks.member}).Err()
}

// mark sets the chat's work mark to become due at unix ms due.
func (s *Store) mark(ctx context.Context, ks chatKeys, due int64) error {
	return s.c.ZAdd(ctx, ks.work, redis.Z{Score: float64(due), Member: ks.member}).Err()
}

// Finish removes the delivered outbox entries, then releases the lease if
// the chat is idle or keeps it (extended) when input or replies arrived
// meanwhile; an idle chat loses its work mark, a busy one has it re-hidden,
// so the chat is recovered if this worker dies before it is done. On a
// single node that is one script, one round trip.
//
// On a cluster the work zset is in another slot, so the mark is handled
// in steps around the script, none of which strands a chat should this
// worker die after it (finishCluster). Nor is input stranded: Append
// pushes the input before it adds the mark, and Finish parks the mark
// before its script looks at the pending list (through ordered, which
// keeps that order). If the input landed first, the script sees it and
// keeps the chat; if not, the ingress's mark moves the parked one, which
// then stays. (If the ingress's mark fails, or its replica dies between
// the two, Repair puts it back.)
func (s *Store) Finish(ctx context.Context, k botgw.ChatKey, lease string, delivered []string) (bool, error) {
	return s.finish(ctx, k, lease, delivered, 0)
}

// finish is Finish that also keeps the chat's send pace (unix ms; 0: none).
func (s *Store) finish(ctx context.Context, k botgw.ChatKey, lease string, delivered []string, paced int64) (bool, error) {
	ks, err := s.keys(k)
	if err != nil {
		return false, fmt.Errorf("finish chat %s: %w", k, err)
	}
	due := s.nowMs() + ms(s.opts.Visibility)
	args := finishArgs(k, lease, ms(s.opts.LeaseTTL), due, ks.member, 0, paced, delivered)
	var code int64
	if s.cluster {
		code, err = s.finishCluster(ctx, ks, due, len(delivered) > 0, args)
	} else {
		code, err = s.run(ctx, finishScript, len(delivered) > 0, []string{ks.lease, ks.pending, ks.outbox, ks.state, ks.work}, args...).Int64()
	}
	switch {
	case err != nil:
		return false, fmt.Errorf("finish chat %s: %w", k, err)
	case code < 0:
		return false, fmt.Errorf("finish chat %s: %w", k, botgw.ErrLeaseLost)
	}
	return code == 1, nil
}

// FinishNext is Finish that also keeps the chat's own send pace (paced,
// the theoretical arrival time of its next send; zero or past: nothing to
// keep) in the chat's state, and, when work remains, returns the next
// turn's input. On a single node that is one script, and the snapshot is
// Kept: the caller goes on with the state it committed (its Blob is not
// read again), and neither the lease nor the work mark is touched (see
// finish.lua). The lease is checked only when replies are left in the
// outbox (ErrLeaseLost if it moved), since they are sent before any fence;
// the next turn's commit is fenced by it, so a caller unsure of its lease
// checks it to spare a turn that would be refused. On a cluster it calls
// Begin after Finish, which reads and checks everything. Unlike Finish it
// does not extend the lease: the caller's renewal covers the next turn.
func (s *Store) FinishNext(ctx context.Context, k botgw.ChatKey, lease string, delivered []string, paced time.Time) (botgw.Snapshot, bool, error) {
	now := s.nowMs()
	keep := int64(0) // a pace already in the past limits nothing: not kept
	if p := paced.UnixMilli(); p > now {
		keep = p
	}
	if s.cluster {
		more, err := s.finish(ctx, k, lease, delivered, keep)
		if err != nil || !more {
			return botgw.Snapshot{}, more, err
		}
		snap, err := s.Begin(ctx, k, lease)
		return snap, true, err
	}
	ks, err := s.keys(k)
	if err != nil {
		return botgw.Snapshot{}, false, fmt.Errorf("finish chat %s: %w", k, err)
	}
	due := now + ms(s.opts.Visibility)
	args := finishArgs(k, lease, ms(s.opts.LeaseTTL), due, ks.member, s.opts.MaxBatch, keep, delivered)
	res, err := s.run(ctx, finishScript, len(delivered) > 0, []string{ks.lease, ks.pending, ks.outbox, ks.state, ks.work}, args...).Result()
	if err != nil {
		return botgw.Snapshot{}, false, fmt.Errorf("finish chat %s: %w", k, err)
	}
	switch v := res.(type) {
	case int64:
		if v < 0 {
			return botgw.Snapshot{}, false, fmt.Errorf("finish chat %s: %w", k, botgw.ErrLeaseLost)
		}
		return botgw.Snapshot{}, false, nil
	case []any:
		if len(v) != 2 {
			return botgw.Snapshot{}, false, fmt.Errorf("finish chat %s: script returned %d values, want 2", k, len(v))
		}
		pending, _ := v[0].([]any)
		outbox, _ := v[1].([]any)
		return botgw.Snapshot{
			Lease:   lease,
			Pending: decodeList[botgw.Inbound](ctx, s, k, ks.pending, pending),
			Outbox:  decodeList[botgw.Outbound](ctx, s, k, ks.outbox, outbox),
			Kept:    true,
		}, true, nil
	}
	return botgw.Snapshot{}, false, fmt.Errorf("finish chat %s: script returned %T", k, res)
}

// finishCluster is Finish on a cluster. Before the script runs on the
// chat's slot, the mark is parked: due once this worker's lease will have
// run out (plus a visibility timeout, which puts it beyond any Append's
// due time, and half a millisecond, which no Append's whole-ms due time
// equals). After the script it is put back, due as usual, when work
// remains, or removed when the chat went idle, unless an Append moved it
// meanwhile (markLT; unmark.lua). A worker that dies between the steps
// leaves the parked mark, so its chat comes due once its lease ran out;
// removing the mark first, as a single node's script does, would leave a
// chat whose worker died before putting it back unmarked, with its input
// pending, until the next Repair.
// With wait (replies were delivered) and MinReplicas, the script runs on
// its own after the mark is parked, followed by WAIT (replicas.go).
func (s *Store) finishCluster(ctx context.Context, ks chatKeys, due int64, wait bool, args []any) (int64, error) {
	keys := []string{ks.lease, ks.pending, ks.outbox, ks.state}
	wait = wait && s.opts.MinReplicas > 0
	parked := float64(s.nowMs()+ms(s.opts.LeaseTTL)+ms(s.opts.Visibility)) + 0.5
	var res *redis.Cmd
	steps := []func(p redis.Pipeliner){func(p redis.Pipeliner) {
		p.ZAdd(ctx, ks.work, redis.Z{Score: parked, Member: ks.member})
	}}
	if !wait {
		steps = append(steps, func(p redis.Pipeliner) { res = finishScript.EvalSha(ctx, p, keys, args...) })
	}
	err := s.ordered(ctx, steps...)
	if err == nil && wait {
		res = s.run(ctx, finishScript, true, keys, args...)
	}
	var code int64
	if err == nil {
		code, err = res.Int64()
	}
	if err == nil && code == 0 {
		// Idle: should the removal fail, the parked mark costs one claim
		// that finds nothing to do.
		if uerr := unmarkScript.Run(ctx, s.c, []string{ks.work}, ks.member, parked).Err(); uerr != nil {
			s.log.Debug("clear an idle chat's work mark", "chat", ks.member, "err", uerr)
		}
		return 0, nil
	}
	// More work, a lost lease (its new holder's mark was just parked) or
	// an unknown outcome: put the mark back, due as usual.
	if merr := s.mark(ctx, ks, due); merr != nil && err == nil {
		err = merr
	}
	return code, err
}

// finishArgs are the finish script's ARGV: the lease, its TTL, the mark's
// due time and member, how many pending entries to read for the next turn
// (0: none), the send pace to keep (unix ms, 0: none), then the delivered
// ids and the JSON each of their outbox entries starts with, which lets the
// script check them against the head of the outbox without decoding it.
func finishArgs(k botgw.ChatKey, lease string, ttl, due int64, member string, read int, paced int64, delivered []string) []any {
	args := make([]any, 0, 7+2*len(delivered))
	args = append(args, lease, ttl, due, member, read, paced, len(delivered))
	for _, id := range delivered {
		args = append(args, id)
	}
	chat, _ := json.Marshal(k.String())
	for _, id := range delivered {
		q, _ := json.Marshal(id)
		args = append(args, `{"chat":`+string(chat)+`,"id":`+string(q)+`,`)
	}
	return args
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, v := range ss {
		out[i] = v
	}
	return out
}

// Release drops the lease and makes the chat due at once, so any replica's
// Due (this one's included) hands it to a worker.
func (s *Store) Release(ctx context.Context, k botgw.ChatKey, lease string) error {
	ks, err := s.keys(k)
	if err != nil {
		return fmt.Errorf("release chat %s: %w", k, err)
	}
	n, err := releaseScript.Run(ctx, s.c, []string{ks.lease}, lease).Int()
	if err != nil {
		return fmt.Errorf("release chat %s: %w", k, err)
	}
	if n == 0 {
		return fmt.Errorf("release chat %s: %w", k, botgw.ErrLeaseLost)
	}
	if err := s.mark(ctx, ks, s.nowMs()); err != nil {
		return fmt.Errorf("release chat %s: mark work: %w", k, err)
	}
	return nil
}

// candidate is a due work mark seen by Due's first round trip.
type candidate struct {
	shard  uint32
	member string
	due    float64
}

// Due reads up to n due marks from every shard (one pipeline), keeps the n
// oldest, and claims them with one script per shard (a second pipeline): a
// claim hides the chat for another visibility timeout and fails if another
// replica claimed it first. Members that are not chat keys are logged and
// skipped.
func (s *Store) Due(ctx context.Context, n int) ([]botgw.ChatKey, error) {
	if n <= 0 {
		return nil, nil
	}
	now := s.nowMs()
	cands, err := s.dueCandidates(ctx, now, n)
	if err != nil {
		return nil, fmt.Errorf("find due chats: %w", err)
	}
	claimed, err := s.claim(ctx, now, cands)
	if err != nil {
		return nil, fmt.Errorf("claim due chats: %w", err)
	}
	keys := make([]botgw.ChatKey, 0, len(claimed))
	for _, m := range claimed {
		k, err := botgw.ParseChatKey(m)
		if err != nil {
			s.log.Error("skipping bad work mark", "member", m, "err", err)
			continue
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func (s *Store) dueCandidates(ctx context.Context, now int64, n int) ([]candidate, error) {
	cmds := make([]*redis.ZSliceCmd, workShards)
	err := s.pipe(ctx, func(p redis.Pipeliner) {
		for i := range cmds {
			cmds[i] = p.ZRangeByScoreWithScores(ctx, s.workKey(uint32(i)), &redis.ZRangeBy{
				Min: "-inf", Max: strconv.FormatInt(now, 10), Count: int64(n),
			})
		}
	})
	if err != nil {
		return nil, err
	}
	var cands []candidate
	for i, cmd := range cmds {
		for _, z := range cmd.Val() {
			cands = append(cands, candidate{shard: uint32(i), member: str(z.Member), due: z.Score})
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int { return cmp.Compare(a.due, b.due) })
	return cands[:min(n, len(cands))], nil
}

func (s *Store) claim(ctx context.Context, now int64, cands []candidate) ([]string, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	var byShard [workShards][]any
	for _, c := range cands {
		byShard[c.shard] = append(byShard[c.shard], c.member)
	}
	var cmds []*redis.Cmd
	err := s.pipe(ctx, func(p redis.Pipeliner) {
		cmds = cmds[:0]
		for shard, members := range byShard {
			if len(members) == 0 {
				continue
			}
			args := append([]any{now, now + ms(s.opts.Visibility)}, members...)
			cmds = append(cmds, claimScript.EvalSha(ctx, p, []string{s.workKey(uint32(shard))}, args...))
		}
	})
	if err != nil {
		return nil, err
	}
	var claimed []string
	for _, cmd := range cmds {
		got, _ := cmd.StringSlice()
		claimed = append(claimed, got...)
	}
	return claimed, nil
}

// Backlog is the cluster-wide work queue as one replica sees it: chats
// whose work mark is due (input or replies that no worker holds) and how
// long the most overdue one has waited past its due time.
type Backlog struct {
	Due     int
	Overdue time.Duration
}

// Backlog reads every work shard's due count and oldest mark in one
// pipeline: 2 × 16 cheap commands, whatever the number of chats.
func (s *Store) Backlog(ctx context.Context) (Backlog, error) {
	now := s.nowMs()
	upTo := strconv.FormatInt(now, 10)
	counts := make([]*redis.IntCmd, workShards)
	oldest := make([]*redis.ZSliceCmd, workShards)
	err := s.pipe(ctx, func(p redis.Pipeliner) {
		for i := range counts {
			k := s.workKey(uint32(i))
			counts[i] = p.ZCount(ctx, k, "-inf", upTo)
			oldest[i] = p.ZRangeWithScores(ctx, k, 0, 0)
		}
	})
	if err != nil {
		return Backlog{}, fmt.Errorf("read work backlog: %w", err)
	}
	var b Backlog
	for i := range counts {
		b.Due += int(counts[i].Val())
		if z := oldest[i].Val(); len(z) > 0 && int64(z[0].Score) < now {
			b.Overdue = max(b.Overdue, time.Duration(now-int64(z[0].Score))*time.Millisecond)
		}
	}
	return b, nil
}
