package whatsapp

import (
	"context"
	"errors"
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

// deliverTimeout bounds making one message durable; past it WhatsApp gets
// no ack and redelivers the message later.
const deliverTimeout = 15 * time.Second

// presenceTimeout bounds marking the account online after connecting.
const presenceTimeout = 10 * time.Second

// handler is the whatsmeow event handler of one session. whatsmeow runs
// handlers one at a time, so it only makes input durable (deliver) and
// queues connection events for the session loop; it never sends and never
// waits for a reply. Returning false withholds the ack, so WhatsApp
// redelivers a message that could not be stored.
func (a *Adapter) handler(ctx context.Context, cli client, evs chan<- any) whatsmeow.EventHandlerWithSuccessStatus {
	return func(evt any) bool {
		switch e := evt.(type) {
		case *events.Message:
			return a.receive(ctx, cli, e)
		case *events.Connected, *events.Disconnected, *events.KeepAliveTimeout, *events.KeepAliveRestored,
			*events.LoggedOut, *events.TemporaryBan, *events.StreamReplaced, *events.ClientOutdated,
			*events.ConnectFailure, *events.CATRefreshError, *events.PushNameSetting:
			select {
			case evs <- evt:
			default:
				a.log.Error("whatsapp connection event dropped: session loop is not keeping up", "event", evt)
			}
		}
		return true
	}
}

// receive normalises one message and makes it durable.
func (a *Adapter) receive(ctx context.Context, cli client, e *events.Message) bool {
	in, ok := a.normalize(ctx, cli, e)
	if !ok {
		a.Ignore()
		return true
	}
	a.mu.Lock()
	deliver := a.deliver
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, deliverTimeout)
	defer cancel()
	if err := deliver(ctx, in); err != nil && !errors.Is(err, botgw.ErrDuplicate) {
		a.log.Error("whatsapp message not stored; WhatsApp will redeliver it", "chat", in.Chat, "err", err)
		return false
	}
	return true
}

// normalize turns a WhatsApp message into an Inbound; ok is false for what
// the gateway ignores (own messages, status broadcasts, reactions, protocol
// messages, edits, group chatter not addressed to the bot).
func (a *Adapter) normalize(ctx context.Context, cli client, e *events.Message) (botgw.Inbound, bool) {
	info := e.Info
	if ignored(e) {
		return botgw.Inbound{}, false
	}
	text, kind, ok := content(e.Message)
	if !ok {
		return botgw.Inbound{}, false
	}
	if info.IsGroup {
		if !a.addressed(cli, e.Message) {
			return botgw.Inbound{}, false
		}
		text = stripMention(text, cli)
	}
	sender := phoneJID(ctx, cli, info.Sender.ToNonAD(), info.SenderAlt)
	chat := sender
	if info.IsGroup {
		chat = info.Chat.ToNonAD()
	}
	return botgw.Inbound{
		Chat:     botgw.ChatKey{Channel: Name, ID: chat.String()},
		Kind:     kind,
		ID:       info.ID,
		UserID:   userID(sender),
		UserName: info.PushName,
		Text:     text,
		At:       info.Timestamp,
		Meta: map[string]string{
			metaChat:   info.Chat.ToNonAD().String(),
			metaSender: info.Sender.ToNonAD().String(),
			metaID:     info.ID,
			metaTS:     strconv.FormatInt(info.Timestamp.Unix(), 10),
		},
	}, true
}
