// Package deadletter keeps what the engine could not deliver or process
// for an operator to list, retry or discard (convo/operator), never
// dropping it silently: a reply the platform refuses for good, whose
// channel is not configured or that still fails after its delivery
// rounds, and input that can never be processed.
package deadletter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/botgw/botgw"
)

// saveTimeout bounds storing one dead letter, on a context that outlives
// shutdown.
const saveTimeout = 5 * time.Second

// Keeper stores dead letters and counts failed delivery rounds. Its zero
// Store keeps none. Safe for concurrent use when Store is.
type Keeper struct {
	Store botgw.DeadLetters
	// LogContent logs a dead letter's text along with it.
	LogContent bool
	// Now stamps each dead letter.
	Now func() time.Time
	// Kept is told of each dead letter stored (metrics); may be nil.
	Kept func(channel, kind string)
}

// CountFailure records one failed delivery round of chat k's outbox entry
// id and returns the rounds so far (0 when they cannot be counted: the
// reply then stays in the outbox).
func (d Keeper) CountFailure(ctx context.Context, k botgw.ChatKey, id string, log *slog.Logger) int {
	if d.Store == nil {
		return 0
	}
	n, err := d.Store.DeliveryFailed(ctx, k, id)
	if err != nil {
		log.Warn("count failed delivery", "err", err)
		return 0
	}
	return n
}

// Reply moves reply m of chat k to the dead letters, after attempts
// delivery rounds, and forgets the rounds counted.
func (d Keeper) Reply(ctx context.Context, k botgw.ChatKey, m botgw.Outbound, reason string, attempts int, log *slog.Logger) {
	dl := botgw.DeadLetter{Chat: k.String(), Kind: botgw.DeadReply, Reason: reason, Attempts: attempts,
		Text: m.Text, Reply: &m}
	if err := d.Add(ctx, dl, log); err != nil {
		log.Error("reply could not be delivered nor kept as a dead letter; dropping it", "err", err, "reason", reason)
		return
	}
	if attempts > 1 {
		if err := d.Store.DeliveryDone(ctx, k, m.ID); err != nil {
			log.Warn("forget delivery attempts", "err", err)
		}
	}
}

// Input keeps input in that can never be processed as a dead letter of
// kind "input"; in.Chat may be malformed, and in is kept whole only when
// it can be stored.
func (d Keeper) Input(ctx context.Context, in botgw.Inbound, reason string, log *slog.Logger) error {
	dl := botgw.DeadLetter{Chat: in.Chat.String(), Kind: botgw.DeadInput, Reason: reason, Text: in.Text}
	if _, err := botgw.ParseChatKey(dl.Chat); err == nil {
		if _, err := json.Marshal(in); err == nil {
			dl.Input = &in
		}
	}
	return d.Add(ctx, dl, log)
}

// Add stores dl on a context that outlives shutdown, logs it at warn (the
// text only with LogContent) and counts it.
func (d Keeper) Add(ctx context.Context, dl botgw.DeadLetter, log *slog.Logger) error {
	if d.Store == nil {
		return errors.New("no dead-letter store")
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
	defer cancel()
	dl.At = d.Now()
	id, err := d.Store.AddDeadLetter(ctx, dl)
	if err != nil {
		return fmt.Errorf("add dead letter: %w", err)
	}
	attrs := []any{"id", id, "kind", dl.Kind, "channel", dl.Channel(), "reason", dl.Reason, "attempts", dl.Attempts}
	if d.LogContent {
		attrs = append(attrs, "text", dl.Text)
	}
	log.Warn("dead letter: kept for an operator to retry or discard", attrs...)
	if d.Kept != nil {
		d.Kept(dl.Channel(), dl.Kind)
	}
	return nil
}
