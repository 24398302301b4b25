package state

import (
	"context"
	"fmt"
	"time"
)

// A commit is fenced by the worker's lease: it is refused once another
// worker has begun on the chat. Begin writes its holder's token into the
// state hash (field "l") as it takes the lease, and Commit compares it in
// the same HMGET that reads the version, so a turn's commit needs no read
// of the lease key. The lease key still decides who may begin; the token
// in the hash only tells Commit whether anyone did since. A worker whose
// lease expired unclaimed may still commit: nobody else read the chat in
// between. A chat with no state yet has no hash to hold a token, and its
// first commit reads the lease key.
//
// Releases before this one do not write the token, so while their
// replicas may still run, a stale worker of this release could commit
// over the turn of one of theirs that began meanwhile (and the chat's
// reply would go out twice). For one dedupe window after this release
// first met a Redis that already held chats, every commit reads the lease
// key too, as those releases did. The decision is kept for the others in
// "<prefix>:fence:{layout}": the unix ms until which commits read it, 0
// for never. Every replica reads it again and renews its expiry at start
// and every RepairInterval, so it lives while any replica of this release
// runs and ends fenceMarkerTTL after the last one stopped, when a release
// started later looks at the data again. An operator going back to an
// earlier release sets it to a time ahead first (see the README's
// "Rolling restarts"), and every replica follows within a minute.

// fenceMarkerTTL is how long the fence decision outlives the last replica
// that renewed it.
const fenceMarkerTTL = time.Hour

func (s *Store) fenceMarker() string { return s.prefix + ":fence:{layout}" }

// checkFenceLayout reads, or makes and records, the decision, and renews
// its expiry.
func (s *Store) checkFenceLayout(ctx context.Context) error {
	key := s.fenceMarker()
	until, err := s.upgradeWindow(ctx, key, fenceMarkerTTL, func(ctx context.Context) (bool, error) {
		return s.anyKey(ctx, globEscape(s.prefix)+":{*}:state")
	})
	if err == nil {
		err = s.c.PExpire(ctx, key, fenceMarkerTTL).Err()
	}
	if err != nil {
		return fmt.Errorf("read the fence layout: %w", err)
	}
	now, was := s.nowMs(), s.fenceUntil.Swap(until)
	switch {
	case until > now && until != was:
		left := time.Duration(until-now) * time.Millisecond
		s.log.Info("an earlier release may run: commits read the lease key too for a while", "left", left.Round(time.Minute).String())
	case until <= now && was > now:
		s.log.Info("commits no longer read the lease key")
	}
	return nil
}
