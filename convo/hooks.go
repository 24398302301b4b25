package convo

import (
	"errors"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/codec"
)

// Hooks are observation points for metrics and tracing. Every field is
// optional; hooks run inline and must be fast.
type Hooks struct {
	// Inbound reports an accepted, duplicate or failed Append.
	Inbound func(channel, outcome string)
	// Turn reports one finished turn.
	Turn func(TurnStats)
	// Dropped reports state that was dropped and why.
	Dropped func(reason string)
	// Delivery reports one outbox delivery attempt.
	Delivery func(channel string, d time.Duration, err error)
	// Lease reports a chat lease taken (+1) or given up (-1) by this
	// replica: the turns in flight.
	Lease func(channel string, delta int)
	// Backlog reports what a worker found when it took a chat: pending
	// input and undelivered replies.
	Backlog func(channel string, pending, outbox int)
	// DeadLetter reports a reply or input moved to the dead letters.
	DeadLetter func(channel, kind string)
}

// TurnStats describes one turn, for metrics. It never holds message text.
type TurnStats struct {
	Channel   string
	Outcome   string // ok, command, event, provider_error, conflict, lease_lost, interrupted
	QueueWait time.Duration
	Provider  time.Duration
	Commit    time.Duration
	Usage     botgw.Usage
	ToolCalls int
	StateSize int
	Compacted bool
	Retries   int
	// Duration is the whole turn, from taking the input to the commit.
	Duration time.Duration
	// Replies is how many replies the turn committed to the outbox; the
	// hook runs before they are delivered.
	Replies int
	// ProviderStatus is the HTTP status of a failed provider call (0 for a
	// transport error or timeout); meaningful when Outcome is provider_error.
	ProviderStatus int
}

func (h Hooks) inbound(in botgw.Inbound, err error) {
	if h.Inbound == nil {
		return
	}
	outcome := "accepted"
	switch {
	case errors.Is(err, botgw.ErrDuplicate):
		outcome = "duplicate"
	case errors.Is(err, botgw.ErrInvalidInput):
		outcome = "ignored"
	case err != nil:
		outcome = "error"
	}
	h.Inbound(in.Chat.Channel, outcome)
}

func (h Hooks) turn(s TurnStats) {
	if h.Turn != nil {
		h.Turn(s)
	}
}

func (h Hooks) dropped(reason codec.DropReason) {
	if h.Dropped != nil {
		h.Dropped(string(reason))
	}
}

func (h Hooks) delivery(channel string, d time.Duration, err error) {
	if h.Delivery != nil {
		h.Delivery(channel, d, err)
	}
}

func (h Hooks) lease(channel string, delta int) {
	if h.Lease != nil {
		h.Lease(channel, delta)
	}
}

func (h Hooks) backlog(channel string, snap botgw.Snapshot) {
	if h.Backlog != nil {
		h.Backlog(channel, len(snap.Pending), len(snap.Outbox))
	}
}
