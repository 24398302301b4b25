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
// for never. Every replica renews that key's expiry at start and every
// RepairInterval, so it lives while any replica of this release runs and
// ends fenceMarkerTTL after the last one stopped; a release started after
// that looks at the data again. (Going back to an earlier release while
// it lives, and forward again, is not seen: see the README's "Rolling
// restarts".)

// fenceMarkerTTL is how long the fence decision outlives the last replica
// that renewed it.
const fenceMarkerTTL = time.Hour

func (s *Store) fenceMarker() string { return s.prefix + ":fence:{layout}" }

// checkFenceLayout reads, or makes and records, the decision.
func (s *Store) checkFenceLayout(ctx context.Context) error {
	until, err := s.upgradeWindow(ctx, s.fenceMarker(), fenceMarkerTTL, func(ctx context.Context) (bool, error) {
		return s.anyKey(ctx, globEscape(s.prefix)+":{*}:state")
	})
	if err == nil {
		err = s.keepFenceLayout(ctx)
	}
	if err != nil {
		return fmt.Errorf("read the fence layout: %w", err)
	}
	s.fenceUntil.Store(until)
	if left := time.Until(time.UnixMilli(until)); left > 0 {
		s.log.Info("chats of an earlier release found: commits read the lease key too for a while", "left", left.Round(time.Minute))
	}
	return nil
}

// keepFenceLayout renews the decision's expiry.
func (s *Store) keepFenceLayout(ctx context.Context) error {
	if err := s.c.PExpire(ctx, s.fenceMarker(), fenceMarkerTTL).Err(); err != nil {
		return fmt.Errorf("renew the fence layout: %w", err)
	}
	return nil
}
