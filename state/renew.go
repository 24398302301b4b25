package state

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

// renewBatch bounds the leases one renewal script extends, so a replica
// holding thousands of chats never blocks Redis for long.
const renewBatch = 256

// Renew extends the lease by LeaseTTL.
func (s *Store) Renew(ctx context.Context, k botgw.ChatKey, lease string) error {
	return s.RenewLeases(ctx, []botgw.ChatKey{k}, []string{lease})[0]
}

// RenewLeases extends the leases of chats, leases[i] being the token held
// for chats[i], by LeaseTTL, in one round trip: on a single node one
// script per renewBatch leases, on a cluster (the leases live in the
// chats' own slots) one script per lease, pipelined. The i-th error is
// nil, botgw.ErrLeaseLost when the lease is no longer leases[i], or the
// failure that left it unknown.
func (s *Store) RenewLeases(ctx context.Context, chats []botgw.ChatKey, leases []string) []error {
	errs := make([]error, len(chats))
	var keys []string
	var idx []int
	for i, k := range chats {
		ks, err := s.keys(k)
		if err != nil {
			errs[i] = fmt.Errorf("renew lease of chat %s: %w", k, err)
			continue
		}
		keys, idx = append(keys, ks.lease), append(idx, i)
	}
	var cmds []*redis.Cmd
	step := renewBatch
	if s.cluster {
		step = 1
	}
	_ = s.pipe(ctx, func(p redis.Pipeliner) { // each script's error is its own
		cmds = cmds[:0]
		for lo := 0; lo < len(keys); lo += step {
			hi := min(lo+step, len(keys))
			args := []any{ms(s.opts.LeaseTTL)}
			for _, i := range idx[lo:hi] {
				args = append(args, leases[i])
			}
			cmds = append(cmds, renewScript.EvalSha(ctx, p, keys[lo:hi], args...))
		}
	})
	for b, cmd := range cmds {
		renewed(cmd, chats, idx[b*step:min((b+1)*step, len(idx))], errs)
	}
	return errs
}

// renewed sets the errors of the chats idx that one renewal script
// covered, from its answer (one 1 or 0 per lease) or its error.
func renewed(cmd *redis.Cmd, chats []botgw.ChatKey, idx []int, errs []error) {
	res, err := cmd.Int64Slice()
	for j, i := range idx {
		switch {
		case err != nil:
			errs[i] = fmt.Errorf("renew lease of chat %s: %w", chats[i], err)
		case j >= len(res):
			errs[i] = fmt.Errorf("renew lease of chat %s: script returned %d values, want %d", chats[i], len(res), len(idx))
		case res[j] == 0:
			errs[i] = fmt.Errorf("renew lease of chat %s: %w", chats[i], botgw.ErrLeaseLost)
		}
	}
}
