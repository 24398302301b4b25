package slack

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

// signedTap posts body to the interactivity route, signed with secret at at.
func signedTap(h http.Handler, body []byte, at time.Time, secret string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, InteractivityPath, strings.NewReader(string(body)))
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:%s", ts, body)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

var dm = botgw.ChatKey{Channel: name, ID: dmChannel}

func sendChoices(t *testing.T, ch *eventsChannel, k botgw.ChatKey, text string) {
	t.Helper()
	out := botgw.Outbound{Chat: k, ID: "re-1", Text: text,
		Offer: botgw.Offer{Choices: []string{"Take the ferry", "Walk <fast> & far"}, Ref: "AbC123xyz_-"}}
	if err := ch.Send(t.Context(), out); err != nil {
		t.Fatalf("Send: %v", err)
	}
}

func TestSendChoicesAsActionsBlock(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	sendChoices(t, ch, dm, "The bridge is closed. *Ferry* or walk?")
	if got := f.Buttons(0); !slices.Equal(got, []string{"Take the ferry", "Walk <fast> & far"}) {
		t.Errorf("buttons %q, want the choices in order", got)
	}
	posts := f.CallsTo("chat.postMessage")
	if b := posts[0].Params["blocks"]; !strings.Contains(b, `"type":"section"`) || !strings.Contains(b, "The bridge is closed") {
		t.Errorf("blocks %s: want the reply's text in a section before the buttons", b)
	}
	long := strings.Repeat("word ", 700) // 3,500 characters: too long for a section
	sendChoices(t, ch, dm, long)
	if got := f.Sent(); len(got) != 3 || len(f.Buttons(2)) != 2 {
		t.Errorf("a long reply with choices: %d posts, buttons %q on the last; want the text, then the buttons", len(got), f.Buttons(2))
	}
}

func TestTapOverInteractivity(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	sendChoices(t, ch, dm, "Ferry or walk?")
	var store channeltest.Store
	h := ch.WebhookHandler(store.Deliver)
	body := f.Tap(0, 1, userID, "13345224609.738474920.8088930838d88f008e0")
	for range 2 { // a double tap on the same interaction
		if w := signedTap(h, body, time.Now(), testSecret); w.Code != http.StatusOK {
			t.Fatalf("interactivity answered %d %s", w.Code, w.Body)
		}
	}
	got := store.Stored()
	if len(got) != 1 {
		t.Fatalf("stored %d inputs, want the tap once", len(got))
	}
	in := got[0]
	if in.Chat != dm || in.Text != "Walk <fast> & far" || in.UserID != userID || in.Tap == nil || in.Tap.Index != 1 || in.Tap.Ref != "AbC123xyz_-" {
		t.Errorf("stored %+v (tap %+v), want the label as the player's words in %s", in, in.Tap, dm)
	}
}

func TestTapInChannelThread(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	k := botgw.ChatKey{Channel: name, ID: groupChannel + "/" + threadTS}
	sendChoices(t, ch, k, "Ferry or walk?")
	var store channeltest.Store
	signedTap(ch.WebhookHandler(store.Deliver), f.Tap(0, 0, userID, "trig-2"), time.Now(), testSecret)
	if got := store.Stored(); len(got) != 1 || got[0].Chat != k || got[0].Text != "Take the ferry" {
		t.Errorf("stored %+v, want the tap in the thread's chat %s", got, k)
	}
}

func TestForgedOrStaleTapIsRefused(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	sendChoices(t, ch, dm, "Ferry or walk?")
	var store channeltest.Store
	h := ch.WebhookHandler(store.Deliver)
	body := f.Tap(0, 0, userID, "trig-3")
	if w := signedTap(h, body, time.Now(), "not-the-secret"); w.Code != http.StatusUnauthorized {
		t.Errorf("forged signature: %d, want 401", w.Code)
	}
	if w := signedTap(h, body, time.Now().Add(-6*time.Minute), testSecret); w.Code != http.StatusUnauthorized {
		t.Errorf("a signature 6 minutes old: %d, want 401", w.Code)
	}
	if n := store.Calls(); n != 0 {
		t.Errorf("%d deliveries from refused requests, want none", n)
	}
}

func TestTapWithUnknownActionIsKept(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	sendChoices(t, ch, dm, "Ferry or walk?")
	var store channeltest.Store
	h := ch.WebhookHandler(store.Deliver)
	signedTap(h, f.TapAction(0, "buy_sword", "sword", "Buy", userID, "trig-4"), time.Now(), testSecret)
	got := store.Stored()
	if len(got) != 1 || got[0].Text != "" || got[0].Tap == nil || got[0].Tap.Data != "buy_sword" {
		t.Errorf("stored %+v, want the tap kept with its unknown action for the engine's note", got)
	}
	if w := signedTap(h, []byte("payload=%7Bnot+json"), time.Now(), testSecret); w.Code != http.StatusBadRequest {
		t.Errorf("a payload that is not JSON: %d, want 400", w.Code)
	}
}

func TestSocketModeTapIsStoredThenAcked(t *testing.T) {
	f := newFakeSlack(t)
	sendChoices(t, newTestAdapter(t, f), dm, "Ferry or walk?")
	env := fmt.Sprintf(`{"envelope_id":"env-tap","payload":%s,"type":"interactive","accepts_response_payload":false}`,
		f.TapPayload(0, 0, userID, "trig-socket"))
	sock := channeltest.NewSlackSocket(t, env)
	f.UseSocket(sock)
	ch, err := New(Config{BotToken: testBotToken, Mode: ModeSocket, AppToken: testAppToken, APIURL: f.URL}, Env{Pacer: testPacer(t)}, discard())
	if err != nil {
		t.Fatal(err)
	}
	var store channeltest.Store
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = ch.(botgw.Listener).Listen(ctx, store.Deliver) }()
	select {
	case got := <-sock.Acks:
		if got != "env-tap" {
			t.Fatalf("ack %q, want env-tap", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tap was never acked")
	}
	if got := store.Stored(); len(got) != 1 || got[0].Text != "Take the ferry" || got[0].Chat != dm {
		t.Errorf("stored %+v, want the tap before the ack", got)
	}
}
