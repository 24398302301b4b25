package botgw

import (
	"context"
	"strings"
	"time"
)

// Snapshot is what a worker sees of a chat when it takes the chat's lease.
type Snapshot struct {
	Lease   string        // the lease token now held by the caller
	Blob    []byte        // opaque state; nil when absent or expired
	Version int64         // 0 when absent
	TTL     time.Duration // time left on the state; 0 when absent
	Pending []Inbound     // input not yet committed, oldest first
	Outbox  []Outbound    // replies committed but not yet delivered, oldest first
	// Paced is the chat's SendPace as the last FinishNext left it (zero:
	// the chat sent nothing lately).
	Paced time.Time
	// Kept is set on a snapshot that does not carry the state (Blob,
	// Version, TTL and Paced are zero): the caller goes on with the state
	// its last Commit wrote, or its last snapshot had, under the lease it
	// holds (Store.FinishNext). The next Commit's lease and version
	// fences catch any change meanwhile.
	Kept bool
}

// Commit is the atomic result of one turn.
type Commit struct {
	Lease    string        // must still be the chat's lease (fencing)
	Version  int64         // Snapshot.Version; the commit fails with ErrConflict if it moved
	Blob     []byte        // new state; nil deletes it
	TTL      time.Duration // sliding expiry, refreshed by every commit
	Consumed int           // pending entries taken from the head of the list
	Outbox   []Outbound    // replies to deliver
	// Activity, when set, updates the chat list (ChatIndex) with the
	// commit: last activity, a preview of the last message, the pause.
	Activity *ChatActivity
	// Records are the change's conversation-stream records, in order; the
	// store numbers and keeps them with the commit for every configured
	// sink (none: they are dropped).
	Records []StreamRecord
}

// ChatActivity is what the chat list knows of a chat, kept at commit so
// listing never decodes state.
type ChatActivity struct {
	At          time.Time
	Preview     string    // the last message, short
	PausedUntil time.Time // zero when not paused
}

// ChatSummary is one chat of the chat list.
type ChatSummary struct {
	Chat ChatKey
	ChatActivity
}

// ChatQuery selects and pages the chat list. Channel and Prefix filter on
// the chat key ("telegram", "telegram:-100"); Cursor "" starts.
type ChatQuery struct {
	Channel, Prefix, Cursor string
	Limit                   int
}

// ChatIndex lists chats by last activity, newest first. Optional: a Store
// that keeps the index at Commit implements it.
type ChatIndex interface {
	// Chats returns up to q.Limit chats and the cursor of the next page (""
	// when done). A page may be short, even empty, with a cursor: the
	// filter examined a bounded number of chats. ErrBadCursor for a cursor
	// it did not hand out.
	Chats(ctx context.Context, q ChatQuery) ([]ChatSummary, string, error)
}

// ChatInfo is the store's view of a chat, for operators.
type ChatInfo struct {
	Chat    ChatKey
	Blob    []byte
	Version int64
	TTL     time.Duration
	Pending int
	Outbox  int
	// Ops are the operator actions (KindOperator) still in the pending
	// list, oldest first: requests that succeeded and that no turn has
	// applied yet. A view of the chat applies them on top of Blob, so an
	// operator sees a pause, a resume or a message as soon as it is taken.
	Ops []Inbound
}

// Store keeps one opaque blob per chat plus its pending input, outbox and
// lease (ARCHITECTURE.md, "Data flow of one turn"). Every method is safe for
// concurrent use and blocks for one or a few Redis round trips.
type Store interface {
	// Append makes in durable at the tail of its chat's pending list and
	// marks the chat as having work. A message whose ID the chat saw within
	// the dedupe window is not stored again: Append returns ErrDuplicate.
	Append(ctx context.Context, in Inbound) error
	// Begin takes the chat's lease for owner (or keeps it, when lease is the
	// token the caller already holds) and loads everything a turn needs.
	// It returns ErrBusy when another worker holds the lease.
	Begin(ctx context.Context, k ChatKey, lease string) (Snapshot, error)
	// Renew extends the lease; ErrLeaseLost if it is no longer the caller's.
	Renew(ctx context.Context, k ChatKey, lease string) error
	// RenewLeases is Renew for many chats at once (leases[i] being the
	// token held for chats[i]) in one round trip where the store can; the
	// i-th error is Renew's for chats[i].
	RenewLeases(ctx context.Context, chats []ChatKey, leases []string) []error
	// Commit applies c atomically: ErrLeaseLost if the lease moved,
	// ErrConflict if the version moved; nothing is written then.
	Commit(ctx context.Context, k ChatKey, c Commit) error
	// Delivered removes the outbox entries ids after the channel took them.
	Delivered(ctx context.Context, k ChatKey, lease string, ids ...string) error
	// Progress notes that the platform took the first sent parts of the
	// split outbox entry id, so a retry on any replica resumes after them.
	// An absent id is no error.
	Progress(ctx context.Context, k ChatKey, id string, sent int) error
	// Finish ends a worker's hold on the chat, first removing the outbox
	// entries delivered (ids; their removal does not depend on the lease).
	// If input or replies arrived meanwhile it keeps the lease and returns
	// more=true; otherwise it releases the lease and clears the chat's
	// work mark.
	Finish(ctx context.Context, k ChatKey, lease string, delivered []string) (more bool, err error)
	// FinishNext is Finish for a worker that goes on with the chat (the
	// engine's busy-chat path): it also keeps the chat's own send pace
	// (paced, the theoretical arrival time of its next send; zero or past:
	// nothing to keep) for the next Snapshot.Paced and, when work remains,
	// returns the next turn's snapshot, which may be Kept. It does not
	// extend the lease (the caller's renewal covers the next turn) and
	// checks it only when replies are left in the outbox (ErrLeaseLost if
	// it moved): the next Commit is fenced by it anyway.
	FinishNext(ctx context.Context, k ChatKey, lease string, delivered []string, paced time.Time) (next Snapshot, more bool, err error)
	// LeaseTTL is how long a lease lasts unless renewed.
	LeaseTTL() time.Duration
	// Release gives the lease back and marks the chat due at once, so
	// another worker (or replica) takes it (shutdown, failed turn).
	// ErrLeaseLost if the lease is not the caller's.
	Release(ctx context.Context, k ChatKey, lease string) error
	// Due returns up to n chats whose work mark is older than the visibility
	// timeout (their worker died or never started) and hides them for another
	// timeout, so one replica takes each.
	Due(ctx context.Context, n int) ([]ChatKey, error)
	// Info reads a chat without taking its lease; ErrNotFound if the chat has
	// no state, pending input or outbox.
	Info(ctx context.Context, k ChatKey) (ChatInfo, error)
	// Reset deletes the chat's state (not its pending input or outbox).
	Reset(ctx context.Context, k ChatKey) error
	// List pages through chats that have state, with an opaque cursor (""
	// starts; "" returned means done). Never blocks Redis (SCAN, not KEYS).
	List(ctx context.Context, cursor string, n int) (chats []ChatKey, next string, err error)
	// Once records name for ttl and reports whether it was new: replay
	// protection and idempotency keys outside a chat.
	Once(ctx context.Context, name string, ttl time.Duration) (bool, error)
	// Ping checks that the store is reachable.
	Ping(ctx context.Context) error
}

// Dead-letter kinds.
const (
	DeadReply = "reply" // a reply the platform refused for good or that exhausted its attempts
	DeadInput = "input" // input that can never be processed
)

// DeadLetter is something the gateway could not deliver or process, kept
// for an operator to retry or discard instead of being dropped silently.
type DeadLetter struct {
	ID       string    `json:"id"`   // assigned by the store
	Chat     string    `json:"chat"` // as received: poison input may not parse as a ChatKey
	Kind     string    `json:"kind"` // DeadReply | DeadInput
	Reason   string    `json:"reason"`
	At       time.Time `json:"at"`
	Attempts int       `json:"attempts"`
	Text     string    `json:"text"`
	// Reply and Input are what a retry hands back to the chat.
	Reply *Outbound `json:"reply,omitempty"`
	Input *Inbound  `json:"input,omitempty"`
}

// Channel is the channel part of d.Chat ("telegram" of "telegram:1").
func (d DeadLetter) Channel() string {
	ch, _, _ := strings.Cut(d.Chat, ":")
	return ch
}

// DeadLetters keeps dead letters for a retention period, newest first.
// Every method is safe for concurrent use and takes one Redis round trip.
type DeadLetters interface {
	// AddDeadLetter stores d, assigning d.ID (and d.At when zero), and
	// returns the id.
	AddDeadLetter(ctx context.Context, d DeadLetter) (string, error)
	// ListDeadLetters pages newest first with an opaque cursor ("" starts;
	// "" returned means done).
	ListDeadLetters(ctx context.Context, cursor string, n int) ([]DeadLetter, string, error)
	// TakeDeadLetter removes and returns one entry atomically, so two
	// operators retrying it at once retry it once; ErrNotFound if absent.
	TakeDeadLetter(ctx context.Context, id string) (DeadLetter, error)
	// DeadLetterCounts counts the entries kept, by channel and kind.
	DeadLetterCounts(ctx context.Context) (map[[2]string]int, error)
	// DeliveryFailed counts one more failed delivery round of outbox entry
	// id of chat k and returns the count so far; DeliveryDone forgets it.
	DeliveryFailed(ctx context.Context, k ChatKey, id string) (int, error)
	DeliveryDone(ctx context.Context, k ChatKey, id string) error
}

// Broadcast states.
const (
	BroadcastRunning   = "running"
	BroadcastCancelled = "cancelled"
	BroadcastFinished  = "finished"
)

// Broadcast is one message or event for many chats, as stored.
type Broadcast struct {
	ID      string
	Message string // the verbatim text; empty for an event
	Event   Event
	Chats   []string // chat keys, in the order they are served
}

// BroadcastInfo is a broadcast's definition and progress.
type BroadcastInfo struct {
	ID         string
	Message    string
	Event      Event
	State      string
	Total      int
	Cursor     int // items queued into their chats so far
	Done       int
	Failed     int
	Cancelled  int
	StartedAt  time.Time
	FinishedAt time.Time
}
