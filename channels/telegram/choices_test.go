package telegram

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

var private = botgw.ChatKey{Channel: Name, ID: "123456789"}

func sendOffer(t *testing.T, ta *testAdapter, k botgw.ChatKey, offer botgw.Offer) []channeltest.APICall {
	t.Helper()
	before := len(ta.api.Delivered())
	out := botgw.Outbound{Chat: k, ID: "re-1", Text: "The bridge is closed. **Ferry** or walk?", Offer: offer}
	if err := ta.ch.Send(t.Context(), out); err != nil {
		t.Fatalf("Send: %v", err)
	}
	return ta.api.Delivered()[before:]
}

// markupOf decodes a sendMessage's reply_markup.
func markupOf(t *testing.T, c channeltest.APICall) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(c.Params["reply_markup"]), &m); err != nil {
		t.Fatalf("reply_markup %q: %v", c.Params["reply_markup"], err)
	}
	return m
}

func TestSendChoicesAsInlineKeyboard(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	sent := sendOffer(t, ta, private, botgw.Offer{Choices: []string{"Take the ferry", "Walk"}, Ref: "AbC123xyz_-"})
	if len(sent) != 1 {
		t.Fatalf("%d messages sent, want 1", len(sent))
	}
	raw := sent[0].Params["reply_markup"]
	if strings.Contains(raw, "copy_text") {
		t.Errorf("buttons carry copy_text (Telegram refuses an empty one): %s", raw)
	}
	rows, _ := markupOf(t, sent[0])["inline_keyboard"].([]any)
	if len(rows) != 2 {
		t.Fatalf("inline_keyboard %s: want 2 rows of one button", raw)
	}
	for i, want := range []string{"Take the ferry", "Walk"} {
		b := rows[i].([]any)
		btn := b[0].(map[string]any)
		data, _ := btn["callback_data"].(string)
		if len(b) != 1 || btn["text"] != want || data == "" || len(data) > 64 {
			t.Errorf("row %d = %v, want one button %q with 1-64 bytes of callback_data", i, b, want)
		}
	}
}

func TestSendAskLocation(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	sent := sendOffer(t, ta, private, botgw.Offer{AskLocation: true})
	if len(sent) != 1 {
		t.Fatalf("%d messages, want 1", len(sent))
	}
	kb := markupOf(t, sent[0])
	rows, _ := kb["keyboard"].([]any)
	if len(rows) != 1 || kb["one_time_keyboard"] != true || !strings.Contains(sent[0].Params["reply_markup"], `"request_location":true`) {
		t.Errorf("reply_markup %s, want a one-time keyboard with a request_location button", sent[0].Params["reply_markup"])
	}
	both := sendOffer(t, ta, private, botgw.Offer{Choices: []string{"Walk"}, AskLocation: true})
	if len(both) != 2 || markupOf(t, both[0])["inline_keyboard"] == nil || markupOf(t, both[1])["keyboard"] == nil {
		t.Errorf("choices and location: %d messages %v, want the inline keyboard then a message with the location keyboard", len(both), both)
	}
	group := sendOffer(t, ta, botgw.ChatKey{Channel: Name, ID: "-1001234567890"}, botgw.Offer{AskLocation: true})
	if len(group) != 1 || group[0].Params["reply_markup"] != "" {
		t.Errorf("in a group: %v, want no location keyboard (private chats only)", group)
	}
}

// tapRig sends a reply with choices and serves taps on it through the
// webhook into a store that records whether the tap was answered before
// it was stored.
type tapRig struct {
	ta    *testAdapter
	store channeltest.Store
	h     http.Handler
}

func newTapRig(t *testing.T) *tapRig {
	r := &tapRig{ta: newTestAdapter(t, Config{}, "")}
	sendOffer(t, r.ta, private, botgw.Offer{Choices: []string{"Take the ferry", "Walk"}, Ref: "AbC123xyz_-"})
	r.h = r.ta.ch.(botgw.WebhookReceiver).WebhookHandler(r.store.Deliver)
	return r
}

// post posts update and returns the call the webhook's 200 asks Telegram
// to make.
func (r *tapRig) post(t *testing.T, update []byte) map[string]any {
	t.Helper()
	w := post(t, r.h, testSecret, update)
	if w.Code != http.StatusOK {
		t.Fatalf("webhook answered %d %s", w.Code, w.Body)
	}
	var call map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &call); err != nil {
		t.Fatalf("webhook's answer %q: %v, want a Bot API call", w.Body, err)
	}
	return call
}

// The webhook's 200 to a tap answers the callback query (Telegram makes
// the call): the gateway calls no API for it, so a slow
// answerCallbackQuery never holds the webhook.
func TestTapIsStoredThenAnswered(t *testing.T) {
	r := newTapRig(t)
	tap := r.ta.api.Tap(600001, "4382bfdwdsb323b2d9", 0, 1, userChat, false)
	answer := r.post(t, tap)
	r.post(t, tap) // Telegram redelivers the update
	stored := r.store.Stored()
	if len(stored) != 1 {
		t.Fatalf("stored %d inputs, want the tap once", len(stored))
	}
	in := stored[0]
	if in.Chat != private || in.Kind != botgw.KindText || in.Text != "Walk" || in.Tap == nil || in.Tap.Ref != "AbC123xyz_-" || in.Tap.Index != 1 {
		t.Errorf("stored %+v (tap %+v), want the label %q as text in %s", in, in.Tap, "Walk", private)
	}
	if in.ID != "cb:4382bfdwdsb323b2d9" || in.UserID != "123456789" {
		t.Errorf("id %q user %q, want the callback query's id and the tapping user", in.ID, in.UserID)
	}
	if answer["method"] != "answerCallbackQuery" || answer["callback_query_id"] != "4382bfdwdsb323b2d9" || answer["text"] != nil {
		t.Errorf("webhook's answer %v, want answerCallbackQuery for the query without a note", answer)
	}
	if _, shown := in.Meta[metaTypingShown]; shown {
		t.Error("the tap is marked as shown typing, but its answer is the callback's: the turn would show none")
	}
	if n := len(r.ta.api.Answered()); n != 0 {
		t.Errorf("%d answerCallbackQuery calls of the gateway's own, want none", n)
	}
}

func TestTapOnInaccessibleMessageKeepsItsReference(t *testing.T) {
	r := newTapRig(t)
	r.post(t, r.ta.api.Tap(600002, "q-old", 0, 0, userChat, true))
	stored := r.store.Stored()
	if len(stored) != 1 || stored[0].Text != "" || stored[0].Tap == nil || stored[0].Tap.Ref != "AbC123xyz_-" || stored[0].Tap.Index != 0 {
		t.Fatalf("stored %+v, want a tap with no label, ref AbC123xyz_- and index 0 for the engine to resolve", stored)
	}
	if stored[0].Chat != private {
		t.Errorf("chat %s, want %s", stored[0].Chat, private)
	}
}

func TestTapWithUnknownDataIsAnsweredWithANote(t *testing.T) {
	r := newTapRig(t)
	answer := r.post(t, r.ta.api.TapData(600003, "q-forged", 0, "buy:sword", userChat))
	stored := r.store.Stored()
	if len(stored) != 1 || stored[0].Tap == nil || stored[0].Tap.Data != "buy:sword" || stored[0].Text != "" {
		t.Fatalf("stored %+v, want the tap kept with its unknown data", stored)
	}
	if answer["method"] != "answerCallbackQuery" || answer["callback_query_id"] != "q-forged" || answer["text"] != expiredNote {
		t.Errorf("webhook's answer %v, want answerCallbackQuery with a short note", answer)
	}
}

func TestTapNotStoredIsNotAnswered(t *testing.T) {
	r := newTapRig(t)
	r.store.Fail(botgw.ErrBusy)
	w := post(t, r.h, testSecret, r.ta.api.Tap(600004, "q-busy", 0, 0, userChat, false))
	if w.Code != http.StatusServiceUnavailable || strings.Contains(w.Body.String(), "answerCallbackQuery") {
		t.Errorf("webhook answered %d %s, want 503 without an answer so Telegram redelivers the tap", w.Code, w.Body)
	}
	if n := len(r.ta.api.Answered()); n != 0 {
		t.Errorf("%d answerCallbackQuery calls for a tap that was not stored, want none", n)
	}
}

func TestPollingTapIsStoredThenAnswered(t *testing.T) {
	ta := newTestAdapter(t, Config{Mode: ModePolling}, "")
	sendOffer(t, ta, private, botgw.Offer{Choices: []string{"Take the ferry", "Walk"}, Ref: "AbC123xyz_-"})
	rec := &channeltest.Store{}
	ta.api.PushUpdates(ta.api.Tap(600010, "q-poll", 0, 0, userChat, false))
	stop := listen(t, ta, rec.Deliver)
	ta.api.WaitFor(func() bool { return len(ta.api.Answered()) == 1 })
	if err := stop(); err != nil {
		t.Errorf("Listen: %v", err)
	}
	if got := rec.Stored(); len(got) != 1 || got[0].Text != "Take the ferry" {
		t.Errorf("stored %+v, want the tap's label", got)
	}
}
