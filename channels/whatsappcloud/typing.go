package whatsappcloud

import (
	"context"
	"time"

	"github.com/botgw/botgw"
)

// readTimeout bounds one read mark.
const readTimeout = 10 * time.Second

// StartTyping marks the turn's message read with WhatsApp's typing
// indicator, which shows until the reply arrives or 25 s pass; it sends
// once, in the background, and stop has nothing to end.
func (a *Adapter) StartTyping(ctx context.Context, in botgw.Inbound) (stop func()) {
	id := in.Meta[metaMessageID]
	if id == "" || in.Kind != botgw.KindText {
		return func() {}
	}
	go a.read(context.WithoutCancel(ctx), id, true)
	return func() {}
}

// markRead marks the last stored message of each chat read (WhatsApp
// marks the earlier ones with it), on its own context: the webhook has
// answered by then.
func (a *Adapter) markRead(stored []botgw.Inbound) {
	last := map[botgw.ChatKey]string{}
	for _, in := range stored {
		last[in.Chat] = in.ID
	}
	for _, id := range last {
		a.read(context.Background(), id, false)
	}
}

func (a *Adapter) read(ctx context.Context, wamid string, typing bool) {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	msg := outMessage{Product: "whatsapp", Status: "read", MessageID: wamid}
	if typing {
		msg.Typing = &typingMarker{Type: "text"}
	}
	if err := a.call(ctx, "POST", a.apiURL+"/"+a.cfg.PhoneNumberID+"/messages", msg, nil); err != nil {
		a.log.Debug("mark a message read", "err", err)
	}
}
