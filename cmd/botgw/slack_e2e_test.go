package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeSlackAPI answers the Web API methods the adapter calls, in Slack's
// wire format (form posts to /api/<method>, {"ok":true,...} answers).
type fakeSlackAPI struct {
	mu    sync.Mutex
	posts []url.Values
}

func (f *fakeSlackAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	w.Header().Set("Content-Type", "application/json")
	switch strings.TrimPrefix(r.URL.Path, "/api/") {
	case "auth.test":
		fmt.Fprint(w, `{"ok":true,"url":"https://game.slack.com/","team":"Game","user":"botgw","team_id":"T061EG9R6","user_id":"U0BOTUSER1","bot_id":"B0BOT00001","is_enterprise_install":false}`)
	case "chat.postMessage":
		f.mu.Lock()
		f.posts = append(f.posts, r.PostForm)
		f.mu.Unlock()
		fmt.Fprintf(w, `{"ok":true,"channel":%q,"ts":"1700000001.000200","message":{"type":"message","user":"U0BOTUSER1","text":"ok","ts":"1700000001.000200"}}`, r.PostForm.Get("channel"))
	case "reactions.add", "reactions.remove":
		fmt.Fprint(w, `{"ok":true}`)
	default:
		fmt.Fprint(w, `{"ok":false,"error":"unknown_method"}`)
	}
}

func (f *fakeSlackAPI) messages() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.posts...)
}

func slackSign(secret, body string, ts time.Time) (string, string) {
	s := strconv.FormatInt(ts.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "v0:%s:%s", s, body)
	return s, "v0=" + hex.EncodeToString(m.Sum(nil))
}

func TestBinaryAnswersASignedSlackEvent(t *testing.T) {
	api := &fakeSlackAPI{}
	srv := httptest.NewServer(api)
	defer srv.Close()
	base := runBinary(t, fmt.Sprintf(`
provider: {kind: fake}
channels:
  slack:
    bot_token: xoxb-e2e
    signing_secret: e2e-signing-secret
    api_url: %s/api/
`, srv.URL))
	raw, err := os.ReadFile("../../channels/slack/testdata/dm_message.json")
	if err != nil {
		t.Fatal(err)
	}
	post := func(secret string, at time.Time, retry string) int {
		ts, sig := slackSign(secret, string(raw), at)
		req, _ := http.NewRequest(http.MethodPost, base+"/webhooks/slack/events", strings.NewReader(string(raw)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Slack-Request-Timestamp", ts)
		req.Header.Set("X-Slack-Signature", sig)
		if retry != "" {
			req.Header.Set("X-Slack-Retry-Num", retry)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post("wrong-secret", time.Now(), ""); code != http.StatusUnauthorized {
		t.Errorf("bad signature: %d, want 401", code)
	}
	if code := post("e2e-signing-secret", time.Now().Add(-10*time.Minute), ""); code != http.StatusUnauthorized {
		t.Errorf("10-minute-old timestamp: %d, want 401", code)
	}
	if code := post("e2e-signing-secret", time.Now(), ""); code != http.StatusOK {
		t.Fatalf("signed event: %d, want 200", code)
	}
	if code := post("e2e-signing-secret", time.Now(), "1"); code != http.StatusOK {
		t.Fatalf("retry: %d, want 200", code)
	}
	waitUntil(t, 10*time.Second, func() bool { return len(api.messages()) > 0 })
	time.Sleep(300 * time.Millisecond)
	posts := api.messages()
	if len(posts) != 1 {
		t.Fatalf("chat.postMessage called %d times, want 1 (the retry is a duplicate)", len(posts))
	}
	if posts[0].Get("channel") != "D024BE91L" || !strings.Contains(posts[0].Get("text"), "Harrogate Theatre") {
		t.Errorf("chat.postMessage = %v", posts[0])
	}
}
