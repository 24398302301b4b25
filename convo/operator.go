package convo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/botgw/botgw"
)

// AuditEntry is one operator action.
type AuditEntry struct {
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`  // "telegram:123456789", "admin-api", "cli"
	Action string    `json:"action"` // reset, status, import
	Target string    `json:"target"` // chat key or dead-letter id
	Detail string    `json:"detail,omitempty"`
	Result string    `json:"result,omitempty"`
}

// AuditLog keeps operator actions (a capped Redis stream in production).
type AuditLog interface {
	Record(ctx context.Context, e AuditEntry) error
	Recent(ctx context.Context, n int) ([]AuditEntry, error)
}

// Operator decodes chats for people and applies operator actions on the
// store: the admin API, the operator page and the CLI all go through it.
type Operator struct {
	Store    botgw.Store
	Trail    AuditLog // nil: actions are only logged
	StateTTL time.Duration
	Log      *slog.Logger
	// Deliver queues operator actions into a chat's pending list: the
	// engine's Handle, so this replica runs them at once; nil: Store.Append
	// (a serving replica's poller picks them up).
	Deliver botgw.Deliver
	// TakeoverTTL is how long a pause without a duration lasts; default 30m.
	TakeoverTTL time.Duration
	// DeadLetters keeps what could not be delivered or processed; nil: the
	// Store, when it implements botgw.DeadLetters.
	DeadLetters botgw.DeadLetters
}

// ChatView is a chat as an operator sees it.
type ChatView struct {
	Chat       string          `json:"chat"`
	Size       int             `json:"size_bytes"`
	TTL        string          `json:"ttl_left"`
	TTLSeconds float64         `json:"ttl_seconds"`
	Version    int64           `json:"version"`
	Pending    int             `json:"pending"`
	Outbox     int             `json:"outbox"`
	Turns      int             `json:"turns"`
	Usage      botgw.Usage     `json:"usage"`
	Provider   string          `json:"provider,omitempty"`
	Compaction compactionStats `json:"compaction"`
	Records    []turnRecord    `json:"records,omitempty"`
	Events     []botgw.Message `json:"events"`
	History    []botgw.Message `json:"history"`
	Problem    string          `json:"problem,omitempty"` // why the stored state cannot be read
	// PausedUntil (RFC 3339) and PausedBy are set while an operator holds
	// the chat.
	PausedUntil string `json:"paused_until,omitempty"`
	PausedBy    string `json:"paused_by,omitempty"`
}

func (o *Operator) List(ctx context.Context, cursor string, n int) ([]botgw.ChatKey, string, error) {
	return o.Store.List(ctx, cursor, n)
}

// Show reads and decodes a chat.
func (o *Operator) Show(ctx context.Context, k botgw.ChatKey) (any, error) {
	info, err := o.Store.Info(ctx, k)
	if err != nil {
		return nil, fmt.Errorf("show %s: %w", k, err)
	}
	v := &ChatView{Chat: k.String(), Size: len(info.Blob), TTL: info.TTL.Round(time.Second).String(),
		TTLSeconds: info.TTL.Seconds(), Version: info.Version, Pending: info.Pending, Outbox: info.Outbox,
		Events: []botgw.Message{}, History: []botgw.Message{}}
	if info.Blob == nil {
		return v, nil
	}
	d, err := Decode(info.Blob)
	if err != nil {
		v.Problem = err.Error()
		return v, nil
	}
	v.Turns, v.Usage, v.Provider, v.Compaction, v.Records = d.Turns, d.Usage, d.Provider, d.Compaction, d.Records
	v.History = d.History
	if time.Now().Before(d.PausedUntil) {
		v.PausedUntil, v.PausedBy = d.PausedUntil.UTC().Format(time.RFC3339), d.PausedBy
	}
	for _, m := range d.History {
		if m.Role == botgw.RoleEvent {
			v.Events = append(v.Events, m)
		}
	}
	return v, nil
}

// Reset forgets a chat's conversation; its next message starts fresh.
func (o *Operator) Reset(ctx context.Context, k botgw.ChatKey, actor string) error {
	err := resetRecorded(ctx, o.Store, k, operatorAgent(actor), o.Log)
	o.record(ctx, AuditEntry{Actor: actor, Action: "reset", Target: k.String()}, err)
	if err != nil {
		return fmt.Errorf("reset %s: %w", k, err)
	}
	return nil
}

// Export returns the decoded, versioned state as JSON.
func (o *Operator) Export(ctx context.Context, k botgw.ChatKey) ([]byte, error) {
	info, err := o.Store.Info(ctx, k)
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", k, err)
	}
	if info.Blob == nil {
		return nil, fmt.Errorf("export %s: %w", k, botgw.ErrNotFound)
	}
	d, err := Decode(info.Blob)
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", k, err)
	}
	return json.MarshalIndent(d, "", "  ")
}

// Import replaces a chat's state with an export, under the chat's lease so
// it never races a turn. An export that would break the chat (unknown role,
// oversize, wrong format) is refused with an error wrapping
// botgw.ErrInvalid that names the field.
func (o *Operator) Import(ctx context.Context, k botgw.ChatKey, data []byte, actor string) error {
	d, err := decodeImport(data)
	if err != nil {
		return err
	}
	blob, err := Encode(d)
	if err != nil {
		return fmt.Errorf("import %s: %w", k, err)
	}
	snap, err := o.Store.Begin(ctx, k, "")
	if errors.Is(err, botgw.ErrBusy) {
		return fmt.Errorf("import %s: a turn is running; try again in a moment: %w", k, err)
	}
	if err != nil {
		return fmt.Errorf("import %s: %w", k, err)
	}
	defer o.Store.Release(context.WithoutCancel(ctx), k, snap.Lease)
	act := &botgw.ChatActivity{At: time.Now()}
	if n := len(d.History); n > 0 {
		act.Preview = previewOf(d.History[n-1])
	}
	err = o.Store.Commit(ctx, k, botgw.Commit{Lease: snap.Lease, Version: snap.Version, Blob: blob, TTL: o.StateTTL, Activity: act})
	o.record(ctx, AuditEntry{Actor: actor, Action: "import", Target: k.String()}, err)
	if err != nil {
		return fmt.Errorf("import %s: %w", k, err)
	}
	return nil
}

// Audit returns the latest operator actions, newest first.
func (o *Operator) Audit(ctx context.Context, n int) (any, error) {
	if o.Trail == nil {
		return []AuditEntry{}, nil
	}
	return o.Trail.Recent(ctx, n)
}

func (o *Operator) record(ctx context.Context, e AuditEntry, err error) {
	e.Result = "ok"
	if err != nil {
		e.Result = err.Error()
	}
	audit(ctx, o.Trail, o.Log, e)
}

// audit logs an operator action and keeps it in the audit log.
func audit(ctx context.Context, l AuditLog, log *slog.Logger, e AuditEntry) {
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

// NewAuditLog keeps audit entries as JSON records in s.
func NewAuditLog(s RecordStream) AuditLog { return streamAudit{s} }

type streamAudit struct{ s RecordStream }

func (a streamAudit) Record(ctx context.Context, e AuditEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode audit entry: %w", err)
	}
	return a.s.Add(ctx, b)
}

func (a streamAudit) Recent(ctx context.Context, n int) ([]AuditEntry, error) {
	recs, err := a.s.Recent(ctx, n)
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	out := make([]AuditEntry, 0, len(recs))
	for _, r := range recs {
		var e AuditEntry
		if json.Unmarshal(r, &e) == nil {
			out = append(out, e)
		}
	}
	return out, nil
}
