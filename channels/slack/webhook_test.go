package slack

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

func sample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signedRequest builds an Events API POST signed the way Slack signs it.
func signedRequest(body []byte, at time.Time, secret string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, EventsPath, strings.NewReader(string(body)))
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:%s", ts, body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	return req
}

// postSample sends one signed sample to the handler and returns the response.
func postSample(t testing.TB, h http.Handler, name string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, signedRequest(sample(t, name), time.Now(), testSecret))
	return w
}

func newHandler(t testing.TB) (http.Handler, *channeltest.Store, *channeltest.SlackAPI) {
	f := newFakeSlack(t)
	rec := &channeltest.Store{}
	return newTestAdapter(t, f).WebhookHandler(rec.Deliver), rec, f
}

func TestWebhookMentionIsAnsweredInItsThread(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	rec := &channeltest.Store{}
	postSample(t, ch.WebhookHandler(rec.Deliver), "app_mention")
	got := rec.Stored()
	if len(got) != 1 {
		t.Fatalf("stored %d messages, want 1", len(got))
	}
	in := got[0]
	if in.Chat.String() != "slack:C0LAN2Q65/1700000100.000200" {
		t.Errorf("chat = %s, want the thread the mention starts", in.Chat)
	}
	if in.Text != "where can I get coffee near the theatre?" {
		t.Errorf("text = %q, want the mention stripped", in.Text)
	}
	if err := ch.Send(t.Context(), botgw.Outbound{Chat: in.Chat, ID: "r1", Text: "Try **Bean & Leaf**."}); err != nil {
		t.Fatal(err)
	}
	posts := f.CallsTo("chat.postMessage")
	if len(posts) != 1 {
		t.Fatalf("%d posts, want 1", len(posts))
	}
	form := posts[0].Params
	if form["channel"] != "C0LAN2Q65" || form["thread_ts"] != "1700000100.000200" {
		t.Errorf("posted to channel %q thread %q, want C0LAN2Q65 thread 1700000100.000200", form["channel"], form["thread_ts"])
	}
	if form["text"] != "Try *Bean &amp; Leaf*." {
		t.Errorf("text = %q, want mrkdwn", form["text"])
	}
}

func TestWebhookRefusesBadRequests(t *testing.T) {
	body := sample(t, "dm_message")
	tests := []struct {
		name string
		req  *http.Request
	}{
		{"wrong secret", signedRequest(body, time.Now(), "not-the-secret")},
		{"ten minutes old", signedRequest(body, time.Now().Add(-10*time.Minute), testSecret)},
		{"from the future", signedRequest(body, time.Now().Add(10*time.Minute), testSecret)},
		{"no signature", httptest.NewRequest(http.MethodPost, EventsPath, strings.NewReader(string(body)))},
		{"body changed", func() *http.Request {
			r := signedRequest(body, time.Now(), testSecret)
			changed := httptest.NewRequest(http.MethodPost, EventsPath, strings.NewReader(strings.Replace(string(body), "Theatre", "Casino", 1)))
			r.Body, r.ContentLength = changed.Body, changed.ContentLength
			return r
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, rec, _ := newHandler(t)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, tc.req)
			if w.Code != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", w.Code)
			}
			if n := len(rec.Stored()); n != 0 {
				t.Errorf("%d messages stored, want none", n)
			}
		})
	}
}

func TestWebhookMentionAndMessageCopiesAreOneMessage(t *testing.T) {
	h, rec, _ := newHandler(t)
	postSample(t, h, "dm_mention")
	postSample(t, h, "dm_mention_message")
	got := rec.Stored()
	if len(got) != 1 {
		t.Fatalf("stored %d messages, want the two copies stored once", len(got))
	}
	if got[0].Text != "/reset" || got[0].Chat.String() != "slack:D024BE91L" {
		t.Errorf("got %q in %s, want /reset in slack:D024BE91L", got[0].Text, got[0].Chat)
	}
}

func TestWebhookIgnoresWhatItDoesNotRead(t *testing.T) {
	for _, name := range []string{"other_bot_message", "channel_join", "unknown_event"} {
		t.Run(name, func(t *testing.T) {
			h, rec, _ := newHandler(t)
			if w := postSample(t, h, name); w.Code != http.StatusOK {
				t.Errorf("status %d, want 200 so Slack does not retry", w.Code)
			}
			if n := rec.Calls(); n != 0 {
				t.Errorf("%d messages delivered, want none", n)
			}
		})
	}
}

func TestWebhookAnswersURLVerification(t *testing.T) {
	h, _, _ := newHandler(t)
	w := postSample(t, h, "url_verification")
	want := "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
	if w.Code != http.StatusOK || w.Body.String() != want {
		t.Errorf("got %d %q, want 200 %q", w.Code, w.Body.String(), want)
	}
}

func TestWebhookAsksForRetryWhenNotStored(t *testing.T) {
	h, rec, _ := newHandler(t)
	rec.Fail(errors.New("redis down"))
	if w := postSample(t, h, "dm_message"); w.Code != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503", w.Code)
	}
}

func TestWebhookRoutes(t *testing.T) {
	h, _, _ := newHandler(t)
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, EventsPath, http.StatusMethodNotAllowed},
		{http.MethodPost, "/webhooks/slack/other", http.StatusNotFound},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		if w.Code != tc.want {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.path, w.Code, tc.want)
		}
	}
}

// BenchmarkWebhookAck measures the time to acknowledge a signed event with a
// deliver that only appends to a slice: no provider is involved.
func BenchmarkWebhookAck(b *testing.B) {
	f := newFakeSlack(b)
	var got []botgw.Inbound
	h := newTestAdapter(b, f).WebhookHandler(func(_ context.Context, in botgw.Inbound) error {
		got = append(got, in)
		return nil
	})
	body := sample(b, "app_mention")
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, signedRequest(body, time.Now(), testSecret))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
	if len(got) == 0 {
		b.Fatal("nothing delivered")
	}
}
