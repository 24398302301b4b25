package slack

import (
	"context"
	"slices"
	"strings"
	"time"
)

// refreshLoop sweeps the installations every refreshEvery until ctx ends.
func (a *adapter) refreshLoop(ctx context.Context) {
	t := time.NewTicker(refreshEvery)
	defer t.Stop()
	for {
		a.sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweep refreshes every token that is due (failed ones after their
// backoff), seals again with token_key what only token_key_old opens, and
// updates Status from what Redis then holds.
func (a *adapter) sweep(ctx context.Context) {
	all, err := a.installs.All(ctx)
	if err != nil {
		a.log.Warn("slack installations not swept", "err", err)
		return
	}
	now := time.Now()
	for id, raw := range all {
		o, err := a.installs.open(id, raw)
		if err != nil {
			a.log.Warn("slack installation unreadable", "team", id, "err", err)
			continue
		}
		if o.stale {
			if _, err := a.installs.Replace(ctx, raw, o.inst); err == nil {
				a.log.Info("slack installation sealed with the new token_key", "team", id)
			}
		}
		if due(o.inst, now) && a.app.mayTry(id, now) {
			_, _ = a.refresh(ctx, id) // a failure is logged and kept by rotate
		}
	}
	if all, err = a.installs.All(ctx); err == nil {
		a.app.setStatus(a.statusOf(all))
	}
}

// statusOf sums up the installations as stored.
func (a *adapter) statusOf(all map[string]string) AppStatus {
	st := AppStatus{Installations: len(all)}
	for id, raw := range all {
		o, err := a.installs.open(id, raw)
		if err != nil {
			continue
		}
		if o.stale {
			st.OldKey++
		}
		if o.inst.RefreshError != "" {
			st.RefreshFailing = append(st.RefreshFailing, RefreshFailure{TeamID: id, Error: o.inst.RefreshError, ExpiresAt: o.inst.ExpiresAt})
		}
	}
	slices.SortFunc(st.RefreshFailing, func(x, y RefreshFailure) int { return strings.Compare(x.TeamID, y.TeamID) })
	return st
}

func (s *appState) setStatus(st AppStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = st
}
