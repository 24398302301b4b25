package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/audit"
)

// A takeover: an operator pauses a chat, talks to the player, resumes.
// Every action is a KindOperator inbound in the chat's pending list, so it
// is applied in arrival order, by whichever replica runs the chat, and
// committed with the chat's state like any turn.

// act puts an operator action into the chat's pending list. The chat must
// exist: an operator acts on a conversation, not on a typo.
func (o *API) act(ctx context.Context, k botgw.ChatKey, in botgw.Inbound) error {
	if _, err := o.Store.Info(ctx, k); err != nil {
		return err
	}
	deliver := o.Deliver
	if deliver == nil {
		deliver = o.Store.Append
	}
	err := deliver(ctx, in)
	if errors.Is(err, botgw.ErrDuplicate) {
		return nil
	}
	return err
}

// Pause takes chat k over for d (TakeoverTTL, default 30m, when d is 0) and
// returns when the pause ends by itself.
func (o *API) Pause(ctx context.Context, k botgw.ChatKey, d time.Duration, actor string) (time.Time, error) {
	if d <= 0 {
		d = o.TakeoverTTL
	}
	if d <= 0 {
		d = 30 * time.Minute
	}
	until := time.Now().Add(d).Truncate(time.Second)
	in := botgw.OperatorInput(k, "", botgw.OperatorAction{Action: botgw.OpPause, Operator: actor, Until: until}, "")
	err := o.act(ctx, k, in)
	o.record(ctx, audit.Entry{Actor: actor, Action: "pause", Target: k.String(), Detail: "until " + until.UTC().Format(time.RFC3339)}, err)
	if err != nil {
		return time.Time{}, fmt.Errorf("pause %s: %w", k, err)
	}
	return until, nil
}

// Resume hands chat k back to the assistant.
func (o *API) Resume(ctx context.Context, k botgw.ChatKey, actor string) error {
	in := botgw.OperatorInput(k, "", botgw.OperatorAction{Action: botgw.OpResume, Operator: actor}, "")
	err := o.act(ctx, k, in)
	o.record(ctx, audit.Entry{Actor: actor, Action: "resume", Target: k.String()}, err)
	if err != nil {
		return fmt.Errorf("resume %s: %w", k, err)
	}
	return nil
}

// Say sends text to chat k through its channel as the assistant, signed by
// operator in the history, offering the player what offer holds.
func (o *API) Say(ctx context.Context, k botgw.ChatKey, text string, offer botgw.Offer, operator, actor string) error {
	in := botgw.OperatorInput(k, "", botgw.OperatorAction{Action: botgw.OpMessage, Operator: operator}, text)
	in.Offer = offer
	err := o.act(ctx, k, in)
	o.record(ctx, audit.Entry{Actor: actor, Action: "message", Target: k.String(), Detail: "as " + operator}, err)
	if err != nil {
		return fmt.Errorf("send operator message to %s: %w", k, err)
	}
	return nil
}

// Inject adds an app event to chat k, as /v1/events would.
func (o *API) Inject(ctx context.Context, k botgw.ChatKey, ev botgw.Event, actor string) error {
	if ev.ID == "" {
		ev.ID = botgw.OperatorInput(k, "", botgw.OperatorAction{}, "").ID
	}
	in := botgw.Inbound{Chat: k, Kind: botgw.KindEvent, ID: "evt:" + ev.ID, At: time.Now(), Event: &ev}
	err := o.act(ctx, k, in)
	o.record(ctx, audit.Entry{Actor: actor, Action: "event", Target: k.String()}, err)
	if err != nil {
		return fmt.Errorf("inject event into %s: %w", k, err)
	}
	return nil
}
