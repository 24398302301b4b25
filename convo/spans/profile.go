package spans

import (
	"context"
	"runtime/pprof"
)

// The turn labels of CPU profile samples: a chat's first turn (no state
// yet: it creates the state and the chat's entry in the chat list) and its
// later ones.
var (
	firstTurn = pprof.Labels("turn", "first")
	laterTurn = pprof.Labels("turn", "later")
)

// ProfileTurn labels the calling goroutine's CPU profile samples with the
// turn it runs, turn=first or turn=later, until restore is called; ctx is
// the goroutine's context, whose labels restore puts back. With
// BOTGW_CPUPROFILE, `go tool pprof -tagfocus turn=first` shows what first
// turns cost the worker (their Redis round trips, the model request, the
// reply), apart from ingress and the HTTP connections' own goroutines.
func ProfileTurn(ctx context.Context, first bool) (restore func()) {
	l := laterTurn
	if first {
		l = firstTurn
	}
	pprof.SetGoroutineLabels(pprof.WithLabels(ctx, l))
	return func() { pprof.SetGoroutineLabels(ctx) }
}
