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
	raw := readSlackSample(t, "dm_message")
	post := func(secret string, at time.Time, retry string) int {
		return postSlack(t, base, raw, secret, at, retry)
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
	// the retry was refused as a duplicate and no turn is left to run
	quiesced(t, base, `botgw_inbound_total{channel="slack",outcome="duplicate"} 1`,
		`botgw_deliveries_total{channel="slack",result="ok"} 1`)
	posts := api.messages()
	if len(posts) != 1 {
		t.Fatalf("chat.postMessage called %d times, want 1 (the retry is a duplicate)", len(posts))
	}
	if posts[0].Get("channel") != "D024BE91L" || !strings.Contains(posts[0].Get("text"), "Harrogate Theatre") {
		t.Errorf("chat.postMessage = %v", posts[0])
	}

	// A mention in a channel starts a conversation of its own, answered in
	// its thread; the follow-up in that thread continues it (the demo
	// provider counts the user's messages it was sent).
	const thread = "1700000100.000200"
	for i, sample := range []string{"app_mention", "thread_mention"} {
		if code := postSlack(t, base, readSlackSample(t, sample), "e2e-signing-secret", time.Now(), ""); code != http.StatusOK {
			t.Fatalf("%s: %d, want 200", sample, code)
		}
		waitUntil(t, 10*time.Second, func() bool { return len(api.messages()) == 2+i })
	}
	posts = api.messages()
	mention, follow := posts[1], posts[2]
	if mention.Get("channel") != "C0LAN2Q65" || mention.Get("thread_ts") != thread || !strings.Contains(mention.Get("text"), "first message in this conversation") {
		t.Errorf("answer to the channel mention = %v, want a first message answered in thread %s (not the DM's conversation)", mention, thread)
	}
	if follow.Get("thread_ts") != thread || !strings.Contains(follow.Get("text"), "2 messages from you so far") || !strings.Contains(follow.Get("text"), "coffee") {
		t.Errorf("answer to the thread follow-up = %v, want the thread's conversation continued (2 messages, first about coffee)", follow)
	}
}

func readSlackSample(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile("../../channels/slack/testdata/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// postSlack posts a signed Events API request and returns the status.
func postSlack(t *testing.T, base, body, secret string, at time.Time, retry string) int {
	t.Helper()
	ts, sig := slackSign(secret, body, at)
	req, _ := http.NewRequest(http.MethodPost, base+"/webhooks/slack/events", strings.NewReader(body))
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
