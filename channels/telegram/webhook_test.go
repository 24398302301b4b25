package telegram

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

// post sends body to the webhook handler like Telegram does.
func post(t *testing.T, h http.Handler, secret string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, WebhookPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set(secretHeader, secret)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func webhookOf(t *testing.T, ta *testAdapter, rec *channeltest.Store) http.Handler {
	t.Helper()
	wr, ok := ta.ch.(botgw.WebhookReceiver)
	if !ok {
		t.Fatal("webhook mode channel is not a botgw.WebhookReceiver")
	}
	return wr.WebhookHandler(rec.Deliver)
}

func TestWebhookRejectsWrongSecret(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	rec := &channeltest.Store{}
	h := webhookOf(t, ta, rec)
	for _, secret := range []string{"", "wrong", testSecret + "x"} {
		w := post(t, h, secret, readSample(t, "private_text.json"))
		if w.Code != http.StatusUnauthorized {
			t.Errorf("secret %q: status %d, want 401", secret, w.Code)
		}
	}
	if calls := rec.Calls(); calls != 0 {
		t.Errorf("deliver called %d times after bad secrets, want 0", calls)
	}
}

func TestWebhookDeliverFailureAsksForRetry(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	rec := channeltest.FailingStore(errors.New("redis down"))
	w := post(t, webhookOf(t, ta, rec), testSecret, readSample(t, "private_text.json"))
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503 so Telegram redelivers", w.Code)
	}
}

func TestWebhookBadRequests(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	h := webhookOf(t, ta, &channeltest.Store{})
	w := post(t, h, testSecret, []byte(`{"update_id": "not a number"`))
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"error":"body:`) {
		t.Errorf("bad JSON: status %d body %s, want 400 naming the body", w.Code, w.Body)
	}
	req := httptest.NewRequest(http.MethodGet, WebhookPath, nil)
	rw := httptest.NewRecorder()
	h.ServeHTTP(rw, req)
	if rw.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: status %d, want 405", rw.Code)
	}
	req = httptest.NewRequest(http.MethodPost, WebhookPath+"/other", nil)
	rw = httptest.NewRecorder()
	h.ServeHTTP(rw, req)
	if rw.Code != http.StatusNotFound {
		t.Errorf("other path: status %d, want 404", rw.Code)
	}
}

// TestWebhookGroupMentionAnsweredAsReply follows a group turn end to end:
// a message without a mention is ignored, one with a mention is delivered
// and its answer is sent to the group as a reply to it.
func TestWebhookGroupMentionAnsweredAsReply(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	rec := &channeltest.Store{}
	h := webhookOf(t, ta, rec)
	for _, name := range []string{"group_no_mention.json", "group_mention.json"} {
		if w := post(t, h, testSecret, readSample(t, name)); w.Code != http.StatusOK {
			t.Fatalf("%s: status %d, want 200", name, w.Code)
		}
	}
	stored := rec.Stored()
	if len(stored) != 1 || stored[0].ID != "2202" || stored[0].Text != "where do we go next?" {
		t.Fatalf("stored %+v, want only the mention, without the mention text", stored)
	}
	in := stored[0]
	err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: in.Chat, ID: "r1", Text: "To the **Pump Room**!", Meta: in.Meta})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	sent := ta.api.CallsTo("sendMessage")
	if len(sent) != 1 {
		t.Fatalf("%d sendMessage calls, want 1", len(sent))
	}
	p := sent[0].Params
	if p["chat_id"] != "-1001234567890" || p["text"] != "To the <b>Pump Room</b>!" || p["parse_mode"] != "HTML" {
		t.Errorf("sendMessage params = %v", p)
	}
	if want := `{"message_id":2202,"allow_sending_without_reply":true}`; p["reply_parameters"] != want {
		t.Errorf("reply_parameters = %s, want %s", p["reply_parameters"], want)
	}
}

func TestWebhookForumTopic(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	rec := &channeltest.Store{}
	post(t, webhookOf(t, ta, rec), testSecret, readSample(t, "forum_topic.json"))
	stored := rec.Stored()
	if len(stored) != 1 || stored[0].Chat.String() != "telegram:-1001234567890/42" {
		t.Fatalf("stored %+v, want one message in chat telegram:-1001234567890/42", stored)
	}
	if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: stored[0].Chat, ID: "r1", Text: "Look up.", Meta: stored[0].Meta}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	p := ta.api.CallsTo("sendMessage")[0].Params
	if p["chat_id"] != "-1001234567890" || p["message_thread_id"] != "42" {
		t.Errorf("sendMessage params = %v, want the topic's chat and thread", p)
	}
}

// The answer to an update the assistant answers shows "typing" in its
// chat (and topic); updates it does not answer get an empty 200.
func TestWebhookAnswerShowsTyping(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	rec := &channeltest.Store{}
	h := webhookOf(t, ta, rec)
	tests := []struct {
		sample string
		want   string // the answer's body
	}{
		{"private_text.json", `{"method":"sendChatAction","chat_id":%s,"action":"typing"}`},
		{"forum_topic.json", `{"method":"sendChatAction","chat_id":%s,"message_thread_id":42,"action":"typing"}`},
		{"voice.json", `{"method":"sendChatAction","chat_id":%s,"action":"typing"}`},
		{"group_no_mention.json", ``},   // not for the assistant
		{"live_location_edit.json", ``}, // a position, no turn
		{"edited_message.json", ``},     // edits are ignored
	}
	for _, tc := range tests {
		before := len(rec.Stored())
		w := post(t, h, testSecret, readSample(t, tc.sample))
		if w.Code != http.StatusOK {
			t.Fatalf("%s: status %d, want 200", tc.sample, w.Code)
		}
		stored := rec.Stored()[before:]
		if tc.want == "" {
			if w.Body.Len() != 0 {
				t.Errorf("%s: answer %s, want none", tc.sample, w.Body)
			}
			for _, in := range stored {
				if in.Meta[metaTypingShown] != "" {
					t.Errorf("%s: stored %+v marked as shown typing", tc.sample, in)
				}
			}
			continue
		}
		if len(stored) != 1 {
			t.Fatalf("%s: stored %d messages, want 1", tc.sample, len(stored))
		}
		tg, _ := parseTarget(stored[0].Chat)
		want := fmt.Sprintf(tc.want, strconv.FormatInt(tg.chat, 10))
		if got := w.Body.String(); got != want || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: answer %s (%s), want %s as JSON", tc.sample, got, w.Header().Get("Content-Type"), want)
		}
		if stored[0].Meta[metaTypingShown] == "" {
			t.Errorf("%s: stored without the time typing was shown: %v", tc.sample, stored[0].Meta)
		}
	}
}

// A turn that ends within Telegram's "typing" shown by the webhook's
// answer calls sendChatAction only when that answer is too old or a
// message since ended it.
func TestTypingShownByTheAnswerIsRenewedNotRepeated(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	rec := &channeltest.Store{}
	post(t, webhookOf(t, ta, rec), testSecret, readSample(t, "private_text.json"))
	in := rec.Stored()[0]
	tg, _ := parseTarget(in.Chat)
	shown, _ := strconv.ParseInt(in.Meta[metaTypingShown], 10, 64)
	at := time.UnixMilli(shown)

	if d := ta.firstSignal(tg, in, at.Add(time.Second)); d != typingEvery-time.Second {
		t.Errorf("1 s after the answer: first signal in %v, want %v (the renewal)", d, typingEvery-time.Second)
	}
	if d := ta.firstSignal(tg, in, at.Add(typingEvery+time.Second)); d != 0 {
		t.Errorf("past the answer's typing: first signal in %v, want at once", d)
	}
	if d := ta.firstSignal(tg, botgw.Inbound{Chat: in.Chat}, at); d != 0 {
		t.Errorf("input no answer showed typing for (an event, polling): first signal in %v, want at once", d)
	}
	other, _ := parseTarget(botgw.ChatKey{Channel: Name, ID: "777"})
	ta.sends.note(other, at.Add(time.Millisecond))
	if d := ta.firstSignal(tg, in, at.Add(time.Second)); d == 0 {
		t.Errorf("a message to another chat ended this chat's typing")
	}
	ta.sends.note(tg, at.Add(-time.Millisecond)) // the reply the player read before writing, still being acknowledged
	if d := ta.firstSignal(tg, in, at.Add(time.Second)); d == 0 {
		t.Errorf("a reply on its way before the answer ended the typing the answer showed")
	}

	// A reply sent after the answer (an earlier turn's) ends the typing.
	if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: in.Chat, ID: "r1", Text: "Found it!", Meta: in.Meta}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if d := ta.firstSignal(tg, in, time.Now()); d != 0 {
		t.Errorf("after a reply to the chat: first signal in %v, want at once", d)
	}
	stop := ta.StartTyping(t.Context(), in)
	ta.api.WaitFor(func() bool { return len(ta.api.CallsTo("sendChatAction")) > 0 })
	stop()
}
