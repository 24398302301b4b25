package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
)

// Inbound.Meta keys: what StartTyping needs for the read receipt.
const (
	metaChat   = "chat"   // the chat JID as received (may be a LID)
	metaSender = "sender" // the author's JID (needed in groups)
	metaID     = "id"     // the message id
	metaTS     = "ts"     // the message time, Unix seconds
)

// presenceTimeout bounds marking the account online after connecting.
const presenceTimeout = 10 * time.Second

// redeliver asks the session loop to reconnect once Redis answers again,
// so WhatsApp redelivers the messages that could not be stored (it does
// so only on a new connection).
type redeliver struct{}

// handler is the whatsmeow event handler of one session. whatsmeow runs
// handlers one at a time, so it only makes input durable (deliver, bounded:
// see persist) and queues connection events for the session loop; it never
// sends and never waits for a reply. Returning false withholds the ack, so
// WhatsApp redelivers a message that could not be stored.
//
// A panic is recovered here, not left to whatsmeow: its dispatchEvent
// recovers it too, but then reports success (client.go), so the message
// would be acknowledged without being stored.
func (a *Adapter) handler(ctx context.Context, cli client, evs chan<- any) whatsmeow.EventHandlerWithSuccessStatus {
	return func(evt any) (ok bool) {
		defer func() {
			if r := recover(); r != nil {
				a.counts.panics.Add(1)
				a.log.Error("whatsapp event handler panicked; the event stays unacknowledged", "event", fmt.Sprintf("%T", evt), "panic", fmt.Sprint(r))
				ok = false
			}
		}()
		switch e := evt.(type) {
		case *events.Message:
			return a.receive(ctx, cli, e, evs)
		case *events.UndecryptableMessage:
			a.undecryptable(ctx, cli, e)
		case *events.MediaRetry:
			a.retries.answer(e)
		case *events.OfflineSyncPreview, *events.OfflineSyncCompleted:
			a.offlineSync(ctx, evt)
		case *events.Connected, *events.Disconnected, *events.KeepAliveTimeout, *events.KeepAliveRestored,
			*events.LoggedOut, *events.TemporaryBan, *events.StreamReplaced, *events.ClientOutdated,
			*events.ConnectFailure, *events.CATRefreshError, *events.PushNameSetting:
			queue(a, evs, evt)
		}
		return true
	}
}

func queue(a *Adapter, evs chan<- any, evt any) {
	select {
	case evs <- evt:
	default:
		a.log.Error("whatsapp connection event dropped: session loop is not keeping up", "event", fmt.Sprintf("%T", evt))
	}
}

// receive normalises one message and makes it durable. A message that
// cannot be stored stays unacknowledged (WhatsApp redelivers it after the
// reconnect that redeliver asks for), unless it failed poisonAfter times
// while the store took other writes: then it is the message's fault, and
// it is kept as a dead letter and acknowledged.
func (a *Adapter) receive(ctx context.Context, cli client, e *events.Message, evs chan<- any) bool {
	in, ok, err := a.normalize(ctx, cli, e)
	switch {
	case err != nil:
		a.counts.storeFailed.Add(1)
		a.log.Error("whatsapp message not stored; it stays unacknowledged and WhatsApp redelivers it after a reconnect", "err", err)
		in = unresolved(e, err)
	case !ok:
		a.Ignore()
		return true
	default:
		a.classify(&in)
		if a.persist(ctx, in) {
			a.failures.forget(in.ID)
			a.noteWrote(ctx, in)
			a.noteStored(ctx, in)
			return true
		}
	}
	if a.poisoned(ctx, in) {
		return true
	}
	if a.redeliverWanted.CompareAndSwap(false, true) {
		queue(a, evs, redeliver{})
	}
	return false
}

// persist makes in durable, trying storeAttempts times (each bounded by
// storeTimeout, with backoff between): whatsmeow's event loop waits
// meanwhile, so the bound is what a slow Redis can cost live traffic.
// False means it could not be stored.
func (a *Adapter) persist(ctx context.Context, in botgw.Inbound) bool {
	a.mu.Lock()
	deliver := a.deliver
	a.mu.Unlock()
	start := time.Now()
	defer a.noteSlow(start, in.Chat)
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, a.tm.storeTimeout)
		err := deliver(actx, in)
		cancel()
		if err == nil || errors.Is(err, botgw.ErrDuplicate) {
			return true
		}
		if attempt >= a.tm.storeAttempts || ctx.Err() != nil {
			a.counts.storeFailed.Add(1)
			a.log.Error("whatsapp message not stored; it stays unacknowledged and WhatsApp redelivers it after a reconnect", "chat", in.Chat, "err", err, "attempts", attempt)
			return false
		}
		a.counts.storeRetries.Add(1)
		a.log.Warn("whatsapp message not stored; retrying", "chat", in.Chat, "err", err, "attempt", attempt)
		if !sleep(ctx, backoff(a.tm.storeBackoff, 8*a.tm.storeBackoff, attempt)) {
			return false
		}
	}
}

// noteSlow logs and counts a store that held whatsmeow's event loop (and
// so every other incoming message) longer than slowStore.
func (a *Adapter) noteSlow(start time.Time, chat botgw.ChatKey) {
	if d := time.Since(start); d > a.tm.slowStore {
		a.counts.storeSlow.Add(1)
		a.log.Warn("whatsapp message store held the event loop", "chat", chat, "took", d.Round(time.Millisecond))
	}
}

// undecryptable counts and logs (without content: there is none) a
// message whatsmeow could not decrypt. whatsmeow has already sent the
// sender a retry receipt and (SynchronousAck) asked the linked phone for
// it; if both fail, this log line is all that is known.
func (a *Adapter) undecryptable(ctx context.Context, cli client, e *events.UndecryptableMessage) {
	a.counts.undecryptable.Add(1)
	chat := e.Info.Chat.ToNonAD()
	if p := a.identify(ctx, cli, e.Info.Sender, e.Info.SenderAlt); !e.Info.IsGroup && !p.pn.IsEmpty() {
		chat = p.pn
	}
	a.log.Warn("whatsapp message could not be decrypted; asked the sender and the phone to resend it",
		"chat", botgw.ChatKey{Channel: Name, ID: chat.String()}, "id", e.Info.ID,
		"unavailable", e.IsUnavailable, "at", e.Info.Timestamp)
}

// normalize turns a WhatsApp message into an Inbound; ok is false for what
// the gateway ignores (own messages, status broadcasts, reactions, protocol
// messages, edits, group chatter not addressed to the bot). err means the
// chat could not be determined (the alias store failed): not stored.
func (a *Adapter) normalize(ctx context.Context, cli client, e *events.Message) (in botgw.Inbound, ok bool, err error) {
	info := e.Info
	c, ok := a.accepted(cli, e)
	if !ok {
		return botgw.Inbound{}, false, nil
	}
	p := a.identify(ctx, cli, info.Sender, info.SenderAlt)
	chat := info.Chat.ToNonAD()
	if !info.IsGroup {
		if chat, err = a.directKey(ctx, p); err != nil {
			return botgw.Inbound{}, false, err
		}
	}
	return botgw.Inbound{
		Chat:     botgw.ChatKey{Channel: Name, ID: chat.String()},
		Kind:     c.Kind,
		ID:       info.ID,
		UserID:   p.userID(),
		UserName: info.PushName,
		Text:     c.Text,
		Location: c.Location,
		Media:    withSource(c.Media, info),
		At:       info.Timestamp,
		Meta: map[string]string{
			metaChat:   info.Chat.ToNonAD().String(),
			metaSender: info.Sender.ToNonAD().String(),
			metaID:     info.ID,
			metaTS:     strconv.FormatInt(info.Timestamp.Unix(), 10),
		},
	}, true, nil
}

// accepted is the content of a message the gateway takes, with a group's
// leading mention of the bot removed.
func (a *Adapter) accepted(cli client, e *events.Message) (botgw.Inbound, bool) {
	if ignored(e) {
		return botgw.Inbound{}, false
	}
	c, ok := content(e.Message)
	if !ok {
		return botgw.Inbound{}, false
	}
	if e.Info.IsGroup {
		if !a.addressed(cli, e.Message) {
			return botgw.Inbound{}, false
		}
		c.Text = stripMention(c.Text, cli)
	}
	return c, true
}
