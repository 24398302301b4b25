package whatsapp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"google.golang.org/protobuf/proto"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/markup"
)

// Send delivers a reply, converted to WhatsApp formatting and split on
// paragraph boundaries, in order. Each part waits for the number's hold,
// pace and daily cap (gate), then is retried with backoff; a failure is a
// *botgw.PlatformError (Permanent when the chat cannot be sent to at all),
// and when the engine retries the reply, parts WhatsApp already took are
// not sent again (within this process). A refusal that restricts the
// whole number (see restriction) holds it on every replica and the part
// waits for the hold's end instead of failing. While the session is down
// on the replica holding it, the reply waits for it (sendClient); other
// replicas return a PlatformError with Waiting set.
func (a *Adapter) Send(ctx context.Context, m botgw.Outbound) error {
	to, err := recipient(m.Chat)
	if err != nil {
		return &botgw.PlatformError{Channel: Name, Permanent: true, Err: err}
	}
	cli, err := a.sendClient(ctx)
	if err != nil {
		return err
	}
	parts := numbered(markup.WhatsApp.Render(m.Text), m.Choices)
	for i := max(a.progress.Sent(m.ID), m.Sent); i < len(parts); i++ {
		if err := a.sendOne(ctx, cli, to, m, i, parts[i]); err != nil {
			a.progress.Record(m.ID, i)
			return a.sendError(m.Chat, i, len(parts), err)
		}
	}
	a.progress.Record(m.ID, 0)
	return nil
}

// sendOne sends part i of m once the gate lets it.
func (a *Adapter) sendOne(ctx context.Context, cli client, to types.JID, m botgw.Outbound, i int, text string) error {
	if err := a.gate(ctx, cli, to, text); err != nil {
		return errGate{err}
	}
	msg := &waE2E.Message{Conversation: proto.String(text)}
	err := a.sendPart(ctx, cli, to, msg, messageID(m, i))
	if err != nil {
		if h, held := a.restriction(ctx, err, to); held {
			return errHeld{err: err, hold: h}
		}
	}
	return err
}

// errGate is a part that never reached WhatsApp: its wait ended (ctx, or
// Redis failing). Retrying the reply later is right.
type errGate struct{ error }

func (e errGate) Unwrap() error { return e.error }

// errHeld is a part WhatsApp refused in a way that held the whole number.
type errHeld struct {
	err  error
	hold Hold
}

func (e errHeld) Error() string { return e.err.Error() + " (number held: " + e.hold.Reason + ")" }
func (e errHeld) Unwrap() error { return e.err }

// sendError turns a failed part into a *botgw.PlatformError: Permanent for
// what WhatsApp refused for this chat alone; for a refusal that held the
// number, Waiting (no delivery round spent): the retry's gate then waits
// for the hold's end, noticing an operator lifting it.
func (a *Adapter) sendError(chat botgw.ChatKey, i, n int, err error) error {
	pe := &botgw.PlatformError{Channel: Name, Sent: i, Err: fmt.Errorf("part %d of %d to %s: %w", i+1, n, chat, err)}
	var g errGate
	var h errHeld
	switch {
	case errors.As(err, &h):
		pe.RetryAfter = min(max(h.hold.Until.Sub(a.clock()), time.Second), a.tm.holdPoll)
		pe.Waiting = waitHold
	case !errors.As(err, &g):
		pe.Permanent = permanent(err)
	}
	return pe
}

// messageID is the WhatsApp message id of part i of reply m: the same on
// every attempt, on every replica, so WhatsApp drops a resend of a part
// it already took. It has the form of whatsmeow's own ids ("3EB0" and 18
// upper-case hex digits), derived from the chat, the outbox entry's id and
// the part index.
func messageID(m botgw.Outbound, i int) types.MessageID {
	h := sha256.Sum256([]byte(m.Chat.String() + "\x00" + m.ID + "\x00" + strconv.Itoa(i)))
	return types.MessageID(whatsmeow.WebMessageIDPrefix + strings.ToUpper(hex.EncodeToString(h[:9])))
}

// sendPart sends one message under id, retrying transient failures with
// backoff (never a refusal or a rate limit).
func (a *Adapter) sendPart(ctx context.Context, cli client, to types.JID, msg *waE2E.Message, id types.MessageID) error {
	for attempt := 1; ; attempt++ {
		_, err := cli.SendMessage(ctx, to, msg, whatsmeow.SendRequestExtra{ID: id})
		if err == nil {
			a.recordSent(ctx, to, id, msg)
		}
		if err == nil || permanent(err) || errors.Is(err, whatsmeow.ErrIQRateOverLimit) {
			return err
		}
		if attempt >= a.tm.sendAttempts {
			return err
		}
		wait := backoff(a.tm.sendBackoff, 16*a.tm.sendBackoff, attempt)
		a.log.Warn("whatsapp send failed; retrying", "chat", to.String(), "err", err, "attempt", attempt, "retry_in", wait)
		if !sleep(ctx, wait) {
			return errors.Join(err, ctx.Err())
		}
	}
}

// permanent reports send errors that retrying cannot fix: a recipient
// WhatsApp does not accept or does not know (a number not on WhatsApp has
// no LID: whatsmeow says "no LID found for … from server", unwrapped), a
// message the server refused (an error code in its ack), or a group the
// bot is not in.
func permanent(err error) bool {
	for _, p := range []error{
		whatsmeow.ErrRecipientADJID, whatsmeow.ErrUnknownServer, whatsmeow.ErrBroadcastListUnsupported,
		whatsmeow.ErrServerReturnedError,
		whatsmeow.ErrIQForbidden, whatsmeow.ErrIQNotFound, whatsmeow.ErrIQGone, whatsmeow.ErrIQBadRequest,
	} {
		if errors.Is(err, p) {
			return true
		}
	}
	return strings.Contains(err.Error(), "no LID found for")
}

// recipient is the JID of a whatsapp chat key: a user (phone number or LID)
// or a group, without a device part.
func recipient(k botgw.ChatKey) (types.JID, error) {
	if k.Channel != Name {
		return types.JID{}, fmt.Errorf("chat %s is not a whatsapp chat", k)
	}
	j, err := types.ParseJID(k.ID)
	if err != nil {
		return types.JID{}, fmt.Errorf("chat %s: %w", k, err)
	}
	switch j.Server {
	case types.DefaultUserServer, types.HiddenUserServer, types.GroupServer:
	default:
		return types.JID{}, fmt.Errorf("chat %s: server %q is not a user or a group", k, j.Server)
	}
	if j.User == "" || j != j.ToNonAD() {
		return types.JID{}, fmt.Errorf("chat %s: want <user>@%s without a device", k, j.Server)
	}
	return j, nil
}
