package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"google.golang.org/protobuf/proto"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels"
)

// partLimit is the longest message part, in runes. WhatsApp accepts far
// more, but shorter messages read better on a phone.
const partLimit = 4000

// Send delivers a reply, converted to WhatsApp formatting and split on
// paragraph boundaries, in order. Each part is retried with backoff; a
// failure is a *botgw.PlatformError (Permanent when the chat cannot be
// sent to at all), and when the engine retries the reply, parts WhatsApp
// already took are not sent again (within this process). Only the replica
// holding the session can send; others return a retryable PlatformError.
func (a *Adapter) Send(ctx context.Context, m botgw.Outbound) error {
	to, err := recipient(m.Chat)
	if err != nil {
		return &botgw.PlatformError{Channel: Name, Permanent: true, Err: err}
	}
	cli := a.current()
	if cli == nil {
		return &botgw.PlatformError{Channel: Name, Err: fmt.Errorf("not connected to WhatsApp on this replica (%s)", a.state.get().State)}
	}
	parts := parts(m.Text)
	for i := a.progress.Sent(m.ID); i < len(parts); i++ {
		if err := a.paceSend(ctx, cli, to, parts[i]); err != nil {
			a.progress.Record(m.ID, i)
			return &botgw.PlatformError{Channel: Name, Err: fmt.Errorf("part %d of %d to %s: %w", i+1, len(parts), m.Chat, err)}
		}
		msg := &waE2E.Message{Conversation: proto.String(parts[i])}
		if perm, err := a.sendPart(ctx, cli, to, msg); err != nil {
			a.progress.Record(m.ID, i)
			err = fmt.Errorf("part %d of %d to %s: %w", i+1, len(parts), m.Chat, err)
			return &botgw.PlatformError{Channel: Name, Permanent: perm, Err: err}
		}
	}
	a.progress.Record(m.ID, 0)
	return nil
}

// parts splits text at partLimit and converts each part; a part that grew
// past the limit in conversion is split again.
func parts(text string) []string {
	var out []string
	for _, p := range channels.Split(text, partLimit) {
		c := Format(p)
		if utf8.RuneCountInString(c) > partLimit {
			out = append(out, channels.Split(c, partLimit)...)
			continue
		}
		out = append(out, c)
	}
	return out
}

// sendPart sends one message, retrying transient failures with backoff;
// perm reports a failure that retrying cannot fix.
func (a *Adapter) sendPart(ctx context.Context, cli client, to types.JID, msg *waE2E.Message) (perm bool, err error) {
	for attempt := 1; ; attempt++ {
		if _, err = cli.SendMessage(ctx, to, msg); err == nil || permanent(err) {
			return err != nil, err
		}
		if attempt >= a.tm.sendAttempts {
			return false, err
		}
		wait := backoff(a.tm.sendBackoff, 16*a.tm.sendBackoff, attempt)
		a.log.Warn("whatsapp send failed; retrying", "chat", to.String(), "err", err, "attempt", attempt, "retry_in", wait)
		if !sleep(ctx, wait) {
			return false, errors.Join(err, ctx.Err())
		}
	}
}

// permanent reports send errors that retrying cannot fix: a recipient
// WhatsApp does not accept, or a group the bot is not in.
func permanent(err error) bool {
	for _, p := range []error{
		whatsmeow.ErrRecipientADJID, whatsmeow.ErrUnknownServer, whatsmeow.ErrBroadcastListUnsupported,
		whatsmeow.ErrIQForbidden, whatsmeow.ErrIQNotFound, whatsmeow.ErrIQGone, whatsmeow.ErrIQBadRequest,
	} {
		if errors.Is(err, p) {
			return true
		}
	}
	return false
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
