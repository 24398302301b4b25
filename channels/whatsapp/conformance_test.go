package whatsapp

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waCommon"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	"google.golang.org/protobuf/proto"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/channels/markup"
)

func TestConformance(t *testing.T) {
	channeltest.Run(t, channeltest.Harness{
		UserID: alicePN.User, UserName: "Ada",
		Dialect: markup.WhatsApp,
		Lacks: map[string]string{
			channeltest.CaseThreadReply: "WhatsApp chats have no threads or topics",
		},
		New: newPlatform,
	})
}

// platform is the adapter, listening, on a fake whatsmeow client.
type platform struct {
	a *Adapter
	f *fakeClient

	mu      sync.Mutex
	deliver botgw.Deliver // the store of the message being received
}

func newPlatform(t *testing.T) channeltest.Platform {
	p := &platform{f: newFakeClient()}
	p.a, _ = testAdapter(Config{}, nil, openFake(p.f))
	listen(t, p.a, func(ctx context.Context, in botgw.Inbound) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.deliver(ctx, in)
	})
	p.f.waitCall(t, "connect")
	p.f.emit(t, &events.Connected{})
	waitState(t, p.a, StateConnected)
	return p
}

func (p *platform) Channel() botgw.Channel { return p.a }

func (p *platform) Receive(t *testing.T, m channeltest.Message, deliver botgw.Deliver) {
	p.mu.Lock()
	p.deliver = deliver
	p.mu.Unlock()
	if !p.f.emit(t, message(m)) {
		t.Fatal("the adapter withheld the ack")
	}
}

func (p *platform) Key(m channeltest.Message) botgw.ChatKey {
	if m.Where == channeltest.Private {
		return botgw.ChatKey{Channel: Name, ID: alicePN.String()}
	}
	return botgw.ChatKey{Channel: Name, ID: group.String()}
}

func (p *platform) Sent() []string { return p.f.sentTexts() }

func (p *platform) Fail(f channeltest.Failure, n int) {
	p.f.mu.Lock()
	defer p.f.mu.Unlock()
	p.f.failErr = map[channeltest.Failure]error{channeltest.Temporary: whatsmeow.ErrMessageTimedOut,
		channeltest.RateLimited: whatsmeow.ErrIQRateOverLimit, channeltest.Permanent: whatsmeow.ErrIQForbidden}[f]
	p.f.failIn = n
}

func (p *platform) Typing() int {
	p.f.mu.Lock()
	defer p.f.mu.Unlock()
	n := 0
	for _, s := range p.f.presences {
		if s == types.ChatPresenceComposing {
			n++
		}
	}
	return n
}

// message writes m as the whatsmeow event of a received message.
func message(m channeltest.Message) *events.Message {
	info := types.MessageInfo{
		MessageSource: types.MessageSource{Chat: alicePN, Sender: alicePN, IsFromMe: m.What == channeltest.Own},
		ID:            fmt.Sprintf("3EB0C431D5A7%08X", m.Seq), PushName: m.UserName,
		Timestamp: time.Unix(1732270000+int64(m.Seq), 0),
	}
	msg := &waE2E.Message{Conversation: proto.String(m.Text)}
	if m.Where != channeltest.Private {
		info.Chat, info.IsGroup = group, true
	}
	if m.Mention {
		msg = &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{Text: proto.String("@" + botPN.User + " " + m.Text),
			ContextInfo: &waE2E.ContextInfo{MentionedJID: []string{botPN.String()}}}}
	}
	e := &events.Message{Info: info, Message: msg}
	switch m.What {
	case channeltest.Media:
		e.Message = &waE2E.Message{ImageMessage: &waE2E.ImageMessage{Mimetype: proto.String("image/jpeg")}}
	case channeltest.Edit:
		e.IsEdit = true
	case channeltest.Reaction:
		e.Message = &waE2E.Message{ReactionMessage: &waE2E.ReactionMessage{Text: proto.String(m.Text),
			Key: &waCommon.MessageKey{RemoteJID: proto.String(info.Chat.String()), ID: proto.String("3EB0C431D5A700000001")}}}
	}
	return e
}

// Offered reads the numbered list under each message sent.
func (p *platform) Offered() [][]string {
	var out [][]string
	for _, s := range p.f.sentTexts() {
		out = append(out, channeltest.NumberedLabels(s))
	}
	return out
}

// Tap is the player's answer naming choice i by its number.
func (p *platform) Tap(t *testing.T, _, i, seq int, deliver botgw.Deliver) {
	m := channeltest.Message{Seq: 9000 + seq, Text: strconv.Itoa(i + 1), UserID: alicePN.User, UserName: "Ada"}
	p.Receive(t, m, deliver)
}
