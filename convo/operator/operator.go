// Package operator is the operator's side of the gateway: inspect, reset,
// export and import chats, take a chat over (pause, say, resume), list,
// retry and discard dead letters. The admin API, the operator page and the
// CLI all go through API; every action is audited. The engine applies the
// actions this package queues in a chat's pending list; it never names
// this package.
package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/convo/codec"
	"github.com/botgw/botgw/convo/streamrec"
)

// API decodes chats for people and applies operator actions on the
// store: the admin API, the operator page and the CLI all go through it.
type API struct {
	Store    botgw.Store
	Trail    audit.Log // nil: actions are only logged
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
	Chat       string                `json:"chat"`
	Size       int                   `json:"size_bytes"`
	TTL        string                `json:"ttl_left"`
	TTLSeconds float64               `json:"ttl_seconds"`
	Version    int64                 `json:"version"`
	Pending    int                   `json:"pending"`
	Outbox     int                   `json:"outbox"`
	Turns      int                   `json:"turns"`
	Usage      botgw.Usage           `json:"usage"`
	Provider   string                `json:"provider,omitempty"`
	Compaction codec.CompactionStats `json:"compaction"`
	Records    []codec.Record        `json:"records,omitempty"`
	Events     []botgw.Message       `json:"events"`
	History    []botgw.Message       `json:"history"`
	Problem    string                `json:"problem,omitempty"` // why the stored state cannot be read
	// PausedUntil (RFC 3339) and PausedBy are set while an operator holds
	// the chat.
	PausedUntil string `json:"paused_until,omitempty"`
	PausedBy    string `json:"paused_by,omitempty"`
}

// List pages through the chats that have state.
func (o *API) List(ctx context.Context, cursor string, n int) ([]botgw.ChatKey, string, error) {
	return o.Store.List(ctx, cursor, n)
}

// Show reads and decodes a chat.
func (o *API) Show(ctx context.Context, k botgw.ChatKey) (any, error) {
	info, err := o.Store.Info(ctx, k)
	if err != nil {
		return nil, fmt.Errorf("show %s: %w", k, err)
	}
	v := &ChatView{Chat: k.String(), Size: len(info.Blob), TTL: info.TTL.Round(time.Second).String(),
		TTLSeconds: info.TTL.Seconds(), Version: info.Version, Pending: info.Pending, Outbox: info.Outbox,
		Events: []botgw.Message{}, History: []botgw.Message{}}
	defer v.applyOps(info.Ops, time.Now())
	if info.Blob == nil {
		return v, nil
	}
	d, err := codec.Inspect(info.Blob)
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
func (o *API) Reset(ctx context.Context, k botgw.ChatKey, actor string) error {
	err := streamrec.Reset(ctx, o.Store, k, streamrec.OperatorAgent(actor), o.Log)
	o.record(ctx, audit.Entry{Actor: actor, Action: "reset", Target: k.String()}, err)
	if err != nil {
		return fmt.Errorf("reset %s: %w", k, err)
	}
	return nil
}

// Export returns the decoded, versioned state as JSON.
func (o *API) Export(ctx context.Context, k botgw.ChatKey) ([]byte, error) {
	info, err := o.Store.Info(ctx, k)
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", k, err)
	}
	if info.Blob == nil {
		return nil, fmt.Errorf("export %s: %w", k, botgw.ErrNotFound)
	}
	d, err := codec.Inspect(info.Blob)
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", k, err)
	}
	return json.MarshalIndent(d, "", "  ")
}

// Import replaces a chat's state with an export, under the chat's lease so
// it never races a turn. An export that would break the chat (unknown role,
// oversize, wrong format) is refused with an error wrapping
// botgw.ErrInvalid that names the field.
func (o *API) Import(ctx context.Context, k botgw.ChatKey, data []byte, actor string) error {
	d, err := decodeImport(data)
	if err != nil {
		return err
	}
	blob, err := d.Encode()
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
		act.Preview = codec.Preview(d.History[n-1])
	}
	err = o.Store.Commit(ctx, k, botgw.Commit{Lease: snap.Lease, Version: snap.Version, Blob: blob, TTL: o.StateTTL, Activity: act})
	o.record(ctx, audit.Entry{Actor: actor, Action: "import", Target: k.String()}, err)
	if err != nil {
		return fmt.Errorf("import %s: %w", k, err)
	}
	return nil
}

// Audit returns the latest operator actions, newest first.
func (o *API) Audit(ctx context.Context, n int) (any, error) {
	if o.Trail == nil {
		return []audit.Entry{}, nil
	}
	return o.Trail.Recent(ctx, n)
}

func (o *API) record(ctx context.Context, e audit.Entry, err error) {
	e.Result = "ok"
	if err != nil {
		e.Result = err.Error()
	}
	audit.Write(ctx, o.Trail, o.Log, e)
}

// Chats lists chats newest activity first, filtered and paged by q, from
// the index the store keeps at commit. botgw.ErrUnsupported when the store
// keeps none; botgw.ErrBadCursor for a cursor it did not hand out.
func (o *API) Chats(ctx context.Context, q botgw.ChatQuery) ([]botgw.ChatSummary, string, error) {
	idx, ok := o.Store.(botgw.ChatIndex)
	if !ok {
		return nil, "", fmt.Errorf("chat list: %w", botgw.ErrUnsupported)
	}
	return idx.Chats(ctx, q)
}
