package whatsapp

import (
	"context"
	"strconv"
	"time"

	"go.mau.fi/whatsmeow/types"

	"github.com/botgw/botgw"
)

// StartTyping marks the message being answered as read and shows
// "composing…" in its chat, renewed until stop is called or ctx ends; then
// it shows "paused". It never blocks: the network work runs in a goroutine.
func (a *Adapter) StartTyping(ctx context.Context, in botgw.Inbound) (stop func()) {
	cli := a.current()
	to, err := recipient(in.Chat)
	if cli == nil || err != nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	go a.typing(ctx, cli, to, in.Meta)
	return cancel
}

func (a *Adapter) typing(ctx context.Context, cli client, to types.JID, meta map[string]string) {
	a.markRead(ctx, cli, meta)
	t := time.NewTicker(a.tm.typingEvery)
	defer t.Stop()
	for {
		a.presence(ctx, cli, to, types.ChatPresenceComposing)
		select {
		case <-ctx.Done():
			a.pause(ctx, cli, to)
			return
		case <-t.C:
		}
	}
}

// pause clears "composing" once the turn is over (ctx has ended).
func (a *Adapter) pause(ctx context.Context, cli client, to types.JID) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	a.presence(ctx, cli, to, types.ChatPresencePaused)
}

func (a *Adapter) presence(ctx context.Context, cli client, to types.JID, p types.ChatPresence) {
	if err := cli.SendChatPresence(ctx, to, p, types.ChatPresenceMediaText); err != nil && ctx.Err() == nil {
		a.log.Debug("whatsapp chat presence not sent", "chat", to.String(), "presence", p, "err", err)
	}
}

// markRead sends the read receipt (blue ticks) for the message in meta, if
// it came from WhatsApp (an app event has no message to mark).
func (a *Adapter) markRead(ctx context.Context, cli client, meta map[string]string) {
	id := meta[metaID]
	chat, err := types.ParseJID(meta[metaChat])
	if id == "" || err != nil {
		return
	}
	sender, _ := types.ParseJID(meta[metaSender])
	sec, _ := strconv.ParseInt(meta[metaTS], 10, 64)
	if err := cli.MarkRead(ctx, []types.MessageID{id}, time.Unix(sec, 0), chat, sender); err != nil && ctx.Err() == nil {
		a.log.Warn("whatsapp read receipt not sent", "chat", chat.String(), "err", err)
	}
}
