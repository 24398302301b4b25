package operator

import (
	"context"
	"errors"
	"fmt"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/audit"
)

// The operator's side of dead letters: list, retry, discard, each audited.

func (o *API) deadLetters() (botgw.DeadLetters, error) {
	if o.DeadLetters != nil {
		return o.DeadLetters, nil
	}
	if d, ok := o.Store.(botgw.DeadLetters); ok {
		return d, nil
	}
	return nil, errors.New("this store keeps no dead letters")
}

// ListDeadLetters pages the dead letters, newest first.
func (o *API) ListDeadLetters(ctx context.Context, cursor string, n int) ([]botgw.DeadLetter, string, error) {
	d, err := o.deadLetters()
	if err != nil {
		return nil, "", err
	}
	return d.ListDeadLetters(ctx, cursor, n)
}

// RetryDeadLetter hands a dead letter back to its chat's pending list: a
// reply goes to the outbox again (delivered once, in the chat's order, by
// whichever replica runs the chat), input is processed again. The entry is
// taken first, so two operators retrying it at once retry it once; if it
// cannot be queued it is put back. ErrNotFound for an unknown id.
func (o *API) RetryDeadLetter(ctx context.Context, id, actor string) error {
	d, err := o.deadLetters()
	if err != nil {
		return err
	}
	dl, err := d.TakeDeadLetter(ctx, id)
	if err == nil {
		if err = o.requeue(ctx, dl); err != nil {
			dl.Attempts++
			if _, perr := d.AddDeadLetter(context.WithoutCancel(ctx), dl); perr != nil {
				err = errors.Join(err, perr)
			}
		}
	}
	o.record(ctx, audit.Entry{Actor: actor, Action: "dead-letter retry", Target: id, Detail: dl.Kind + " " + dl.Chat}, err)
	if err != nil {
		return fmt.Errorf("retry dead letter %s: %w", id, err)
	}
	return nil
}

// requeue puts a taken dead letter into its chat's pending list.
func (o *API) requeue(ctx context.Context, dl botgw.DeadLetter) error {
	k, err := botgw.ParseChatKey(dl.Chat)
	if err != nil {
		return fmt.Errorf("chat %q cannot take input: %w", dl.Chat, err)
	}
	var in botgw.Inbound
	switch {
	case dl.Kind == botgw.DeadReply && dl.Reply != nil:
		in = botgw.OperatorInput(k, "dl-"+dl.ID, botgw.OperatorAction{Action: botgw.OpRedeliver, Reply: dl.Reply}, "")
	case dl.Input != nil:
		in = *dl.Input
		in.ID = "dl-" + dl.ID
	default:
		in = botgw.Inbound{Chat: k, Kind: botgw.KindText, ID: "dl-" + dl.ID, Text: dl.Text}
	}
	deliver := o.Deliver
	if deliver == nil {
		deliver = o.Store.Append
	}
	if err := deliver(ctx, in); err != nil && !errors.Is(err, botgw.ErrDuplicate) {
		return err
	}
	return nil
}

// DiscardDeadLetter deletes a dead letter; ErrNotFound for an unknown id.
func (o *API) DiscardDeadLetter(ctx context.Context, id, actor string) error {
	d, err := o.deadLetters()
	if err != nil {
		return err
	}
	dl, err := d.TakeDeadLetter(ctx, id)
	o.record(ctx, audit.Entry{Actor: actor, Action: "dead-letter discard", Target: id, Detail: dl.Kind + " " + dl.Chat}, err)
	if err != nil {
		return fmt.Errorf("discard dead letter %s: %w", id, err)
	}
	return nil
}

// DeadLetterItem is a dead letter as the admin API shows it.
type DeadLetterItem struct {
	ID       string `json:"id"`
	Chat     string `json:"chat"`
	Kind     string `json:"kind"`
	Reason   string `json:"reason"`
	At       string `json:"at"`
	Attempts int    `json:"attempts"`
	Text     string `json:"text"`
}

// Items turns dead letters into their API form.
func Items(dls []botgw.DeadLetter) []DeadLetterItem {
	out := make([]DeadLetterItem, len(dls))
	for i, d := range dls {
		out[i] = DeadLetterItem{ID: d.ID, Chat: d.Chat, Kind: d.Kind, Reason: d.Reason,
			At: d.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"), Attempts: d.Attempts, Text: d.Text}
	}
	return out
}
