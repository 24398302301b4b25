package compaction

import (
	"context"
	"fmt"
	"slices"

	"github.com/botgw/botgw"
)

// looseShare: once a history is over its token budget, loose messages and
// tool summaries keep at most 1/looseShare of it, so old summaries cannot
// crowd out recent exchanges.
const looseShare = 4

// None returns every history unchanged.
func None() botgw.Compactor {
	return botgw.CompactorFunc(func(_ context.Context, h []botgw.Message, _ botgw.UsageHint) ([]botgw.Message, error) {
		return h, nil
	})
}

// KeepLast keeps the last n completed exchanges whole (at least one) in
// addition to the input being answered (the exchanges at the end that no
// assistant message answers yet, with the events that came with them), the
// pinned events, and a summary line for each dropped exchange that used
// tools. When it drops exchanges it also keeps at most n loose messages
// (summaries, events before the first user message), the newest.
func KeepLast(n int) botgw.Compactor {
	n = max(n, 1)
	return botgw.CompactorFunc(func(_ context.Context, h []botgw.Message, _ botgw.UsageHint) ([]botgw.Message, error) {
		p := newPlan(h, nil)
		if p.completed() > n {
			p.trim(
				func() bool { return p.completed() > n || p.looseN > n },
				func() bool { return p.looseN > n },
			)
		}
		return p.output(h), nil
	})
}

// TokenBudget drops the oldest exchanges and loose messages until the
// history fits in maxTokens by c, leaving a summary line for each dropped
// exchange that used tools. The input being answered (the newest exchange,
// and every exchange at the end no assistant message answers yet) is always
// kept whole, even when it alone exceeds the budget, and so are the pinned
// events.
func TokenBudget(maxTokens int, c Counter) botgw.Compactor {
	if c == nil {
		c = Heuristic
	}
	return botgw.CompactorFunc(func(ctx context.Context, h []botgw.Message, hint botgw.UsageHint) ([]botgw.Message, error) {
		limit := budget(hint, maxTokens)
		reserve := limit / looseShare
		p := newPlan(h, c)
		p.trim(
			func() bool { return p.total > limit },
			func() bool { return p.loose > reserve },
		)
		return p.output(h), nil
	})
}

// Chain runs cs in order, each on the previous one's result.
func Chain(cs ...botgw.Compactor) botgw.Compactor {
	cs = slices.Clone(cs)
	return botgw.CompactorFunc(func(ctx context.Context, h []botgw.Message, hint botgw.UsageHint) ([]botgw.Message, error) {
		for i, c := range cs {
			var err error
			if h, err = c.Compact(ctx, h, hint); err != nil {
				return nil, fmt.Errorf("compaction step %d: %w", i+1, err)
			}
		}
		return h, nil
	})
}

// OverTokens is a trigger for When: it reports whether a history is over
// maxTokens by c.
func OverTokens(maxTokens int, c Counter) func([]botgw.Message) bool {
	if c == nil {
		c = Heuristic
	}
	return func(h []botgw.Message) bool { return CountMessages(c, h) > maxTokens }
}

// When runs c on the histories for which trigger reports true and returns
// the others unchanged.
func When(trigger func([]botgw.Message) bool, c botgw.Compactor) botgw.Compactor {
	return botgw.CompactorFunc(func(ctx context.Context, h []botgw.Message, hint botgw.UsageHint) ([]botgw.Message, error) {
		if !trigger(h) {
			return h, nil
		}
		return c.Compact(ctx, h, hint)
	})
}
