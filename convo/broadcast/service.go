package broadcast

import (
	"context"
	"time"

	"github.com/botgw/botgw"
)

// Progress is a broadcast as GET /v1/broadcasts/{id} shows it. Pending are
// the items not settled yet; Cancelled counts the items a cancel stopped
// (queued but not sent, or never queued).
type Progress struct {
	ID         string     `json:"id"`
	State      string     `json:"state"` // running, finished, cancelled
	Total      int        `json:"total"`
	Queued     int        `json:"queued"`
	Done       int        `json:"done"`
	Failed     int        `json:"failed"`
	Cancelled  int        `json:"cancelled"`
	Pending    int        `json:"pending"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

// Create stores a broadcast and wakes the runner (webhooks.Broadcasts).
func (r *Runner) Create(ctx context.Context, id string, chats []string, message string, ev botgw.Event) (int, error) {
	r.init() // Create may come before Run has started
	created, total, err := r.Store.Create(ctx, botgw.Broadcast{ID: id, Chats: chats, Message: message, Event: ev})
	if err != nil {
		return 0, err
	}
	if created {
		r.Log.Info("broadcast accepted", "broadcast", id, "total", total)
	}
	r.Kick()
	return total, nil
}

// Progress reads a broadcast's progress.
func (r *Runner) Progress(ctx context.Context, id string) (any, error) {
	info, err := r.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return progress(info), nil
}

// Cancel stops a broadcast and returns its progress.
func (r *Runner) Cancel(ctx context.Context, id string) (any, error) {
	if err := r.Store.Cancel(ctx, id); err != nil {
		return nil, err
	}
	r.init()
	r.mu.Lock()
	delete(r.states, id)
	r.mu.Unlock()
	return r.Progress(ctx, id)
}

func progress(info botgw.BroadcastInfo) Progress {
	p := Progress{ID: info.ID, State: info.State, Total: info.Total, Queued: info.Cursor, Done: info.Done,
		Failed: info.Failed, Cancelled: info.Cancelled, StartedAt: info.StartedAt}
	if info.State == botgw.BroadcastCancelled {
		p.Cancelled += info.Total - info.Cursor
	}
	p.Pending = max(0, p.Total-p.Done-p.Failed-p.Cancelled)
	if !info.FinishedAt.IsZero() {
		p.FinishedAt = &info.FinishedAt
	}
	return p
}
