package telegram

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/channels/markup"
)

const (
	userChat  = 123456789
	groupChat = -1001234567890
	topic     = 42
)

func TestConformance(t *testing.T) {
	channeltest.Run(t, channeltest.Harness{
		UserID: strconv.Itoa(userChat), UserName: "ada_l",
		Dialect: markup.Telegram,
		New: func(t *testing.T) channeltest.Platform {
			return &platform{newTestAdapter(t, Config{}, "")}
		},
	})
}

// platform is the adapter in webhook mode on the fake Bot API.
type platform struct{ *testAdapter }

func (p *platform) Channel() botgw.Channel { return p.ch }

func (p *platform) Receive(t *testing.T, m channeltest.Message, deliver botgw.Deliver) {
	body, err := json.Marshal(update(m))
	if err != nil {
		t.Fatal(err)
	}
	h := p.ch.(botgw.WebhookReceiver).WebhookHandler(deliver)
	if w := post(t, h, testSecret, body); w.Code != http.StatusOK {
		t.Fatalf("webhook answered %d %s", w.Code, w.Body)
	}
}

func (p *platform) Key(m channeltest.Message) botgw.ChatKey {
	id := strconv.Itoa(userChat)
	switch m.Where {
	case channeltest.Group:
		id = strconv.Itoa(groupChat)
	case channeltest.Thread:
		id = strconv.Itoa(groupChat) + "/" + strconv.Itoa(topic)
	}
	return botgw.ChatKey{Channel: Name, ID: id}
}

func (p *platform) Sent() []string { return p.api.Sent() }

func (p *platform) Fail(f channeltest.Failure, n int) {
	refusals := map[channeltest.Failure]*channeltest.Reply{
		channeltest.Temporary:   {Status: 502, Body: `{"ok":false,"error_code":502,"description":"Bad Gateway"}`},
		channeltest.RateLimited: {Status: 429, Body: `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}`},
		channeltest.Permanent:   {Status: 403, Body: `{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`},
	}
	p.api.Refuse(refusals[f], n)
}

func (p *platform) Typing() int { return len(p.api.CallsTo("sendChatAction")) }

// update writes m as the Bot API Update Telegram would post.
func update(m channeltest.Message) map[string]any {
	id := 1000 + m.Seq
	from := map[string]any{"id": userChat, "is_bot": false, "first_name": "Ada", "username": m.UserName}
	chat := map[string]any{"id": userChat, "type": "private", "first_name": "Ada"}
	msg := map[string]any{"message_id": id, "from": from, "chat": chat, "date": 1732270000 + m.Seq, "text": m.Text}
	if m.Where != channeltest.Private {
		msg["chat"] = map[string]any{"id": groupChat, "type": "supergroup", "title": "Harrogate Hunters", "is_forum": true}
	}
	if m.Where == channeltest.Thread {
		msg["message_thread_id"], msg["is_topic_message"] = topic, true
	}
	if m.Mention {
		mention := "@" + testBot
		msg["text"] = mention + " " + m.Text
		msg["entities"] = []map[string]any{{"type": "mention", "offset": 0, "length": len(mention)}}
	}
	u := map[string]any{"update_id": 500000 + m.Seq, "message": msg}
	switch m.What {
	case channeltest.Media:
		delete(msg, "text")
		msg["photo"] = []map[string]any{{"file_id": "AgACAgQAAxkBAAIBQ2dAbc1", "file_unique_id": "AQADs7gxG1", "width": 90, "height": 67}}
	case channeltest.Edit:
		msg["edit_date"] = 1732270100
		u = map[string]any{"update_id": 500000 + m.Seq, "edited_message": msg}
	case channeltest.Reaction:
		u = map[string]any{"update_id": 500000 + m.Seq, "message_reaction": map[string]any{
			"chat": msg["chat"], "message_id": id, "user": from, "date": 1732270100,
			"old_reaction": []any{}, "new_reaction": []map[string]any{{"type": "emoji", "emoji": m.Text}}}}
	case channeltest.Own:
		msg["from"] = map[string]any{"id": 7000000001, "is_bot": true, "first_name": "Botgw Test", "username": testBot}
	}
	return u
}

func (p *platform) Offered() [][]string { return p.api.Offered() }

// Tap posts the callback_query of a tap on button i of the n-th message.
func (p *platform) Tap(t *testing.T, n, i, seq int, deliver botgw.Deliver) {
	u := p.api.Tap(700000+seq, "q-"+strconv.Itoa(seq), n, i, userChat, false)
	if w := post(t, p.ch.(botgw.WebhookReceiver).WebhookHandler(deliver), testSecret, u); w.Code != http.StatusOK {
		t.Fatalf("webhook answered %d %s", w.Code, w.Body)
	}
}
