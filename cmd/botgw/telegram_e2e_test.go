package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeBotAPI answers the Bot API methods the adapter calls, in Telegram's
// wire format (multipart requests, {"ok":true,"result":...} answers).
type fakeBotAPI struct {
	mu   sync.Mutex
	sent []map[string]string
	// limit, when set, is the bot-wide rate Telegram enforces: past it
	// sendMessage answers 429 with parameters.retry_after.
	limit *botLimit
}

// botLimit is a token bucket of rate sends a second holding up to burst.
type botLimit struct {
	rate, burst, tokens float64
	last                time.Time
	refused             int // 429 answers given
}

// allow takes a token at now; false when the bucket is empty.
func (l *botLimit) allow(now time.Time) bool {
	if l.last.IsZero() {
		l.tokens = l.burst
	}
	l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	l.last = now
	if l.tokens < 1 {
		l.refused++
		return false
	}
	l.tokens--
	return true
}

// refused is how many sends the bot-wide limit answered with 429.
func (f *fakeBotAPI) refused() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.limit == nil {
		return 0
	}
	return f.limit.refused
}

const e2eBotToken = "7000000001:AAH-e2e_Token"

func (f *fakeBotAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+e2eBotToken+"/")
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`)
		return
	}
	_ = r.ParseMultipartForm(1 << 20)
	w.Header().Set("Content-Type", "application/json")
	switch method {
	case "getMe":
		fmt.Fprint(w, `{"ok":true,"result":{"id":7000000001,"is_bot":true,"first_name":"Game","username":"GameBot","can_join_groups":true,"can_read_all_group_messages":false,"supports_inline_queries":false}}`)
	case "sendMessage":
		p := map[string]string{}
		for k, v := range r.MultipartForm.Value {
			p[k] = v[0]
		}
		f.mu.Lock()
		if f.limit != nil && !f.limit.allow(time.Now()) {
			f.mu.Unlock()
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 1","parameters":{"retry_after":1}}`)
			return
		}
		f.sent = append(f.sent, p)
		f.mu.Unlock()
		fmt.Fprintf(w, `{"ok":true,"result":{"message_id":2000,"date":%d,"chat":{"id":%s,"type":"private"},"text":"ok"}}`, time.Now().Unix(), p["chat_id"])
	default: // setMyCommands, sendChatAction, setWebhook
		fmt.Fprint(w, `{"ok":true,"result":true}`)
	}
}

func (f *fakeBotAPI) messages() []map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]string(nil), f.sent...)
}

func TestBinaryAnswersATelegramUpdate(t *testing.T) {
	api := &fakeBotAPI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	base := runBinary(t, fmt.Sprintf(`
provider: {kind: fake}
channels:
  telegram:
    token: "%s"
    webhook_secret: e2e-secret
    api_url: %s
`, e2eBotToken, srv.URL))
	update, err := os.ReadFile("../../channels/telegram/testdata/private_text.json")
	if err != nil {
		t.Fatal(err)
	}
	post := func(secret string) int {
		req, _ := http.NewRequest(http.MethodPost, base+"/webhooks/telegram", strings.NewReader(string(update)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post("wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong secret: %d, want 401", code)
	}
	if code := post("e2e-secret"); code != http.StatusOK {
		t.Fatalf("update: %d, want 200", code)
	}
	if code := post("e2e-secret"); code != http.StatusOK { // Telegram redelivers
		t.Fatalf("redelivered update: %d, want 200", code)
	}
	waitUntil(t, 10*time.Second, func() bool { return len(api.messages()) > 0 })
	// the redelivery was refused as a duplicate and no turn is left to run
	quiesced(t, base, `botgw_inbound_total{channel="telegram",outcome="duplicate"} 1`,
		`botgw_deliveries_total{channel="telegram",result="ok"} 1`)
	msgs := api.messages()
	if len(msgs) != 1 {
		t.Fatalf("sendMessage called %d times, want 1 (the redelivery is a duplicate)", len(msgs))
	}
	if msgs[0]["chat_id"] != "123456789" || !strings.Contains(msgs[0]["text"], "Where is the next clue?") {
		t.Errorf("sendMessage = %v", msgs[0])
	}
}

func waitUntil(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
