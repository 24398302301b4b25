package channels

import (
	"context"
	"sync"
	"time"
)

// maxProgress bounds the replies a Progress remembers; past it, it forgets
// them all (a retry then resends from the first part).
const maxProgress = 1024

// Progress remembers, per reply id, how many parts of a split reply the
// platform already took, so a retried Send resumes after them instead of
// repeating part one. It is per process: a reply retried on another replica
// starts again from its first part. The zero value is ready; it is safe for
// concurrent use.
type Progress struct {
	mu    sync.Mutex
	parts map[string]int
}

// Sent returns how many parts of reply id were taken.
func (p *Progress) Sent(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.parts[id]
}

// Record notes that n parts of reply id were taken; 0 forgets id.
func (p *Progress) Record(id string, n int) {
	if id == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n == 0 {
		delete(p.parts, id)
		return
	}
	if p.parts == nil || len(p.parts) >= maxProgress {
		p.parts = make(map[string]int)
	}
	p.parts[id] = n
}

// Sleep waits d or until ctx ends, and returns ctx's error in that case.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
