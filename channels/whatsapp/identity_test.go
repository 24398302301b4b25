package whatsapp

import (
	"context"
	"sync"
	"testing"

	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
)

// ingress stores inbound as the gateway's ingress does: deduplicated on
// (chat, message id).
type ingress struct {
	mu   sync.Mutex
	seen map[string]bool
	ins  []botgw.Inbound
}

func (g *ingress) deliver(_ context.Context, in botgw.Inbound) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen == nil {
		g.seen = map[string]bool{}
	}
	k := in.Chat.String() + "|" + in.ID
	if g.seen[k] {
		return botgw.ErrDuplicate
	}
	g.seen[k] = true
	g.ins = append(g.ins, in)
	return nil
}

func (g *ingress) chats() map[botgw.ChatKey][]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := map[botgw.ChatKey][]string{}
	for _, in := range g.ins {
		out[in.Chat] = append(out[in.Chat], in.ID)
	}
	return out
}

// fromLID is a direct message addressed by LID; alt is the phone JID
// WhatsApp sent along (or empty).
func fromLID(id string, lid, alt types.JID) *events.Message {
	e := dm(id, lid, text("hi"))
	e.Info.AddressingMode, e.Info.SenderAlt = types.AddressingModeLID, alt
	return e
}

// A player first seen as a LID WhatsApp gave no number for, then (once
// the mapping is known) by phone number: one conversation, and the
// redelivered first message is stored once, so it is answered once.
func TestLIDThenPhoneIsOneConversation(t *testing.T) {
	g := &ingress{}
	f := newFakeClient()
	a, _ := testAdapter(Config{}, nil, openFake(f))
	listen(t, a, g.deliver)
	f.waitCall(t, "connect")
	f.emit(t, fromLID("M1", aliceLID, types.JID{}))
	f.mu.Lock() // whatsmeow learns the mapping (a later sender_pn)
	f.lidToPN[aliceLID], f.pnToLID[alicePN] = alicePN, aliceLID
	f.mu.Unlock()
	redelivered := dm("M1", alicePN, text("hi"))
	redelivered.Info.SenderAlt = aliceLID
	for _, e := range []*events.Message{fromLID("M1", aliceLID, alicePN), redelivered, dm("M2", alicePN, text("still there?"))} {
		if !f.emit(t, e) {
			t.Fatalf("%s not acked", e.Info.ID)
		}
	}
	chats := g.chats()
	if len(chats) != 1 {
		t.Fatalf("conversations %v, want one", chats)
	}
	for k, ids := range chats {
		if len(ids) != 2 || ids[0] != "M1" || ids[1] != "M2" {
			t.Errorf("chat %s stored %v, want M1 once then M2", k, ids)
		}
	}
}

// A player first seen by number, later by a LID the store does not map:
// the LID was learned from WhatsApp on the first message (one lookup),
// so both land in the phone-number conversation.
func TestPhoneThenLIDIsOneConversation(t *testing.T) {
	g := &ingress{}
	f := newFakeClient()
	f.directory[alicePN] = aliceLID
	a, _ := testAdapter(Config{}, nil, openFake(f))
	listen(t, a, g.deliver)
	f.waitCall(t, "connect")
	f.emit(t, dm("M1", alicePN, text("hi")))
	f.emit(t, dm("M2", alicePN, text("hello?")))
	f.emit(t, fromLID("M3", aliceLID, types.JID{}))
	chats := g.chats()
	if ids := chats[key(alicePN.String())]; len(chats) != 1 || len(ids) != 3 {
		t.Fatalf("conversations %v, want M1-M3 in %s", chats, alicePN)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.lookups) != 1 {
		t.Errorf("%d LID lookups, want one per number", len(f.lookups))
	}
}

// An operator (configured by number) whom WhatsApp shows by LID, with no
// mapping in the store, is recognised: the LID was resolved at login.
func TestOperatorMatchedByLID(t *testing.T) {
	rec := &channeltest.Store{}
	f := newFakeClient()
	f.directory[alicePN] = aliceLID
	a, _ := testAdapter(Config{}, nil, openFake(f))
	WithOperators([]string{"447700900123"})(a)
	listen(t, a, rec.Deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	wait.Eventually(t, "operators' LIDs resolved", func() bool { _, ok := a.ops.phoneOf(aliceLID); return ok })
	f.emit(t, fromLID("M1", aliceLID, types.JID{}))
	got := rec.Stored()
	if len(got) != 1 || got[0].UserID != "447700900123" || got[0].Chat != key(alicePN.String()) {
		t.Fatalf("delivered %+v, want the operator's number as the user and chat", got)
	}
}
