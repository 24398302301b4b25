// Package audit keeps what operators do: who did what to which chat, and
// how it went, as a capped log the admin API reads back.
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"
)

// Entry is one operator action.
type Entry struct {
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`  // "telegram:123456789", "admin-api", "cli"
	Action string    `json:"action"` // reset, status, import
	Target string    `json:"target"` // chat key or dead-letter id
	Detail string    `json:"detail,omitempty"`
	Result string    `json:"result,omitempty"`
}

// Log keeps operator actions (a capped Redis stream in production).
type Log interface {
	Record(ctx context.Context, e Entry) error
	Recent(ctx context.Context, n int) ([]Entry, error)
}

// Write logs an operator action and keeps it in l; l and log may be nil.
func Write(ctx context.Context, l Log, log *slog.Logger, e Entry) {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	if log != nil {
		log.Info("audit", "actor", e.Actor, "action", e.Action, "target", e.Target, "result", e.Result)
	}
	if l == nil {
		return
	}
	if err := l.Record(ctx, e); err != nil && log != nil {
		log.Warn("record audit entry", "err", err)
	}
}

// RecordStream is a capped log of JSON records (the store's audit stream).
type RecordStream interface {
	Add(ctx context.Context, rec []byte) error
	// Recent returns up to n records, newest first.
	Recent(ctx context.Context, n int) ([][]byte, error)
}

// NewLog keeps audit entries as JSON records in s.
func NewLog(s RecordStream) Log { return streamLog{s} }

type streamLog struct{ s RecordStream }

func (a streamLog) Record(ctx context.Context, e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode audit entry: %w", err)
	}
	return a.s.Add(ctx, b)
}

func (a streamLog) Recent(ctx context.Context, n int) ([]Entry, error) {
	recs, err := a.s.Recent(ctx, n)
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	out := make([]Entry, 0, len(recs))
	for _, r := range recs {
		var e Entry
		if json.Unmarshal(r, &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}
