package whatsappcloud

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestHandshake(t *testing.T) {
	r := newRig(t, false)
	for _, c := range []struct {
		query string
		code  int
		body  string
	}{
		{"hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444", 200, "1158201444"},
		{"hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1158201444", 403, ""},
		{"hub.mode=unsubscribe&hub.verify_token=verify-me&hub.challenge=1", 403, ""},
	} {
		w := httptest.NewRecorder()
		r.a.WebhookHandler(r.store.Deliver).ServeHTTP(w, httptest.NewRequest(http.MethodGet, WebhookPath+"?"+c.query, nil))
		if w.Code != c.code || (c.body != "" && w.Body.String() != c.body) {
			t.Errorf("%s: %d %q, want %d %q", c.query, w.Code, w.Body, c.code, c.body)
		}
	}
}

// A forged or missing signature is 401 and nothing is stored; a body that
// is not Meta's webhook is 400 naming the field; past 1 MiB 413.
func TestWebhookRefusesBadInput(t *testing.T) {
	r := newRig(t, false)
	body := []byte(`{"object":"whatsapp_business_account","entry":[{"changes":[{"field":"messages","value":{"messages":[{"from":"447700900123","id":"wamid.1","timestamp":"1732270000","type":"text","text":{"body":"hi"}}]}}]}]}`)
	for name, secret := range map[string]string{"forged": "not-the-secret", "missing": ""} {
		if w := r.post(t, body, secret); w.Code != http.StatusUnauthorized {
			t.Errorf("%s signature: %d, want 401", name, w.Code)
		}
	}
	if n := len(r.store.Stored()); n != 0 {
		t.Fatalf("%d stored from unsigned bodies, want 0", n)
	}
	noEntry := []byte(`{"object":"whatsapp_business_account"}`)
	if w := r.post(t, noEntry, testSecret); w.Code != http.StatusBadRequest || !contains(w.Body.String(), `"entry: required`) {
		t.Errorf("no entry: %d %s, want 400 naming entry", w.Code, w.Body)
	}
	big := bytes.Repeat([]byte("a"), 5<<20)
	huge := append(append([]byte(`{"object":"whatsapp_business_account","entry":[{"changes":[{"field":"messages","value":{"messages":[{"from":"447700900123","id":"wamid.2","timestamp":"1","type":"text","text":{"body":"`), big...), `"}}]}}]}]}`...)
	if w := r.post(t, huge, testSecret); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("5 MB text: %d, want 413", w.Code)
	}
	unknown := []byte(`{"object":"whatsapp_business_account","entry":[{"changes":[{"field":"messages","value":{"statuses":[{"id":"wamid.nobody","status":"failed","recipient_id":"447700900123","errors":[{"code":131047,"title":"Re-engagement message"}]}]}}]}]}`)
	if w := r.post(t, unknown, testSecret); w.Code != http.StatusOK {
		t.Errorf("status of an unknown message: %d, want 200", w.Code)
	}
	if n := len(r.store.Stored()); n != 0 {
		t.Errorf("%d stored, want 0", n)
	}
	in := r.receive(t, text("wamid.ok", "hello", time.Now()))
	if in.Text != "hello" || in.Chat != chat() || in.UserName != "Ada" {
		t.Errorf("stored %+v", in)
	}
}
