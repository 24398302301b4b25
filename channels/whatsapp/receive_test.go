package whatsapp

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	"google.golang.org/protobuf/proto"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

var (
	alicePN  = types.NewJID("447700900123", types.DefaultUserServer)
	aliceLID = types.NewJID("123456789012345", types.HiddenUserServer)
	bobLID   = types.NewJID("555555555555555", types.HiddenUserServer)
	group    = types.NewJID("120363025246125486", types.GroupServer)
	sentAt   = time.Date(2026, 11, 20, 18, 30, 0, 0, time.UTC)
)

// dm is a direct message as whatsmeow emits it.
func dm(id string, from types.JID, m *waE2E.Message) *events.Message {
	return &events.Message{
		Info: types.MessageInfo{
			MessageSource: types.MessageSource{Chat: from, Sender: from, AddressingMode: types.AddressingModePN},
			ID:            id, PushName: "Alice", Timestamp: sentAt, Type: "text",
		},
		Message: m,
	}
}

// inGroup is a group message from sender.
func inGroup(id string, sender types.JID, m *waE2E.Message) *events.Message {
	e := dm(id, sender, m)
	e.Info.Chat, e.Info.IsGroup = group, true
	e.Info.Sender = types.JID{User: sender.User, Server: sender.Server, Device: 12}
	return e
}

func text(s string) *waE2E.Message { return &waE2E.Message{Conversation: proto.String(s)} }

func mentioning(s string, jids ...string) *waE2E.Message {
	return &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{
		Text: proto.String(s), ContextInfo: &waE2E.ContextInfo{MentionedJID: jids},
	}}
}

func TestNormalize(t *testing.T) {
	lidOnly := dm("M6", aliceLID, text("hi from lid"))
	withAlt := dm("M7", aliceLID, text("hi"))
	withAlt.Info.SenderAlt, withAlt.Info.AddressingMode = alicePN, types.AddressingModeLID
	reply := &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{Text: proto.String("and you?"),
		ContextInfo: &waE2E.ContextInfo{StanzaID: proto.String("3EB0AA"), Participant: proto.String(botLID.String())}}}

	tests := []struct {
		name    string
		trigger string
		evt     *events.Message
		want    *botgw.Inbound // nil: ignored
	}{
		{"extended text", "", dm("M2", alicePN, &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{Text: proto.String("see https://x.test")}}),
			&botgw.Inbound{Chat: key("447700900123@s.whatsapp.net"), Kind: botgw.KindText, ID: "M2", UserID: "447700900123", Text: "see https://x.test"}},
		{"image caption", "", dm("M3", alicePN, &waE2E.Message{ImageMessage: &waE2E.ImageMessage{Caption: proto.String("where is this?")}}),
			&botgw.Inbound{Chat: key("447700900123@s.whatsapp.net"), Kind: botgw.KindText, ID: "M3", UserID: "447700900123", Text: "where is this?"}},
		{"document caption", "", dm("M3d", alicePN, &waE2E.Message{DocumentMessage: &waE2E.DocumentMessage{Caption: proto.String("my ticket")}}),
			&botgw.Inbound{Chat: key("447700900123@s.whatsapp.net"), Kind: botgw.KindText, ID: "M3d", UserID: "447700900123", Text: "my ticket"}},
		{"video is unsupported", "", dm("M4", alicePN, &waE2E.Message{VideoMessage: &waE2E.VideoMessage{Mimetype: proto.String("video/mp4")}}),
			&botgw.Inbound{Chat: key("447700900123@s.whatsapp.net"), Kind: botgw.KindUnsupported, ID: "M4", UserID: "447700900123"}},
		{"LID sender with phone alt is one chat", "", withAlt,
			&botgw.Inbound{Chat: key("447700900123@s.whatsapp.net"), Kind: botgw.KindText, ID: "M7", UserID: "447700900123", Text: "hi"}},
		{"LID sender mapped by the store", "", lidOnly,
			&botgw.Inbound{Chat: key("447700900123@s.whatsapp.net"), Kind: botgw.KindText, ID: "M6", UserID: "447700900123", Text: "hi from lid"}},
		{"unknown LID keeps the LID", "", dm("M10", bobLID, text("who am i")),
			&botgw.Inbound{Chat: key("555555555555555@lid"), Kind: botgw.KindText, ID: "M10", UserID: "555555555555555@lid", Text: "who am i"}},
		{"status broadcast", "", dm("S1", types.StatusBroadcastJID, text("my status")), nil},
		{"protocol message", "", dm("P1", alicePN, &waE2E.Message{ProtocolMessage: &waE2E.ProtocolMessage{Type: waE2E.ProtocolMessage_REVOKE.Enum()}}), nil},
		{"sender key only", "", inGroup("K1", alicePN, &waE2E.Message{SenderKeyDistributionMessage: &waE2E.SenderKeyDistributionMessage{GroupID: proto.String(group.String())}}), nil},
		{"group mention by LID", "", inGroup("G3", alicePN, mentioning("@99887766554433 where next?", botLID.String())),
			&botgw.Inbound{Chat: key("120363025246125486@g.us"), Kind: botgw.KindText, ID: "G3", UserID: "447700900123", Text: "where next?"}},
		{"group reply to the bot", "", inGroup("G4", alicePN, reply),
			&botgw.Inbound{Chat: key("120363025246125486@g.us"), Kind: botgw.KindText, ID: "G4", UserID: "447700900123", Text: "and you?"}},
		{"group mention of someone else", "", inGroup("G5", alicePN, mentioning("@447700900123 hi", alicePN.String())), nil},
		{"group chatter with trigger all", TriggerAll, inGroup("G6", alicePN, text("lunch?")),
			&botgw.Inbound{Chat: key("120363025246125486@g.us"), Kind: botgw.KindText, ID: "G6", UserID: "447700900123", Text: "lunch?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeClient()
			f.lidToPN[aliceLID] = alicePN
			a, _ := testAdapter(Config{GroupTrigger: tt.trigger}, nil, openFake(f))
			got, ok, err := a.normalize(context.Background(), f, tt.evt)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if ok {
					t.Fatalf("delivered %+v, want it ignored", got)
				}
				return
			}
			if !ok {
				t.Fatal("ignored, want delivered")
			}
			checkInbound(t, got, *tt.want)
		})
	}
}

func key(id string) botgw.ChatKey { return botgw.ChatKey{Channel: "whatsapp", ID: id} }

func checkInbound(t *testing.T, got, want botgw.Inbound) {
	t.Helper()
	if got.Chat != want.Chat || got.Kind != want.Kind || got.ID != want.ID || got.UserID != want.UserID || got.Text != want.Text {
		t.Errorf("got chat=%s kind=%s id=%s user=%s text=%q\nwant chat=%s kind=%s id=%s user=%s text=%q",
			got.Chat, got.Kind, got.ID, got.UserID, got.Text, want.Chat, want.Kind, want.ID, want.UserID, want.Text)
	}
	if !got.At.Equal(sentAt) || got.Meta[metaID] != want.ID || got.Meta[metaChat] == "" {
		t.Errorf("At=%v Meta=%v: want the message time and the ids to answer with", got.At, got.Meta)
	}
}

func TestHandlerDeliversAndAcks(t *testing.T) {
	rec := &channeltest.Store{}
	f := newFakeClient()
	a, _ := testAdapter(Config{}, nil, openFake(f))
	listen(t, a, rec.Deliver)
	if !f.emit(t, dm("M1", alicePN, text("hello"))) {
		t.Fatal("handler withheld the ack of a stored message")
	}
	if got := rec.Stored(); len(got) != 1 || got[0].Text != "hello" {
		t.Fatalf("delivered %+v, want the message", got)
	}
	meta := rec.Stored()[0].Meta
	if meta[metaSender] != alicePN.String() || meta[metaTS] != strconv.FormatInt(sentAt.Unix(), 10) {
		t.Errorf("Meta = %v, want the sender and Unix time for the read receipt", meta)
	}
}

func TestHandlerWithholdsAckWhenNotStored(t *testing.T) {
	rec := channeltest.FailingStore(errors.New("redis: connection refused"))
	f := newFakeClient()
	a, logs := testAdapter(Config{}, nil, openFake(f))
	listen(t, a, rec.Deliver)
	if f.emit(t, dm("M1", alicePN, text("hello"))) {
		t.Error("handler acked a message that was not stored: WhatsApp would not redeliver it")
	}
	if !strings.Contains(logs.String(), "WhatsApp redelivers it") {
		t.Errorf("failure not logged:\n%s", logs)
	}
	rec.Fail(botgw.ErrDuplicate)
	if !f.emit(t, dm("M1", alicePN, text("hello"))) {
		t.Error("a redelivered duplicate was not acked")
	}
}
