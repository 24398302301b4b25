package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/wait"
)

// newSlackAPI is the fake Web API (channeltest) of the e2e bot.
func newSlackAPI(t testing.TB, botToken string) *channeltest.SlackAPI {
	return channeltest.NewSlackAPI(t, botToken, "", "U0BOTUSER1", "B0BOT00001")
}

func slackSign(secret, body string, ts time.Time) (string, string) {
	s := strconv.FormatInt(ts.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "v0:%s:%s", s, body)
	return s, "v0=" + hex.EncodeToString(m.Sum(nil))
}

func TestBinaryAnswersASignedSlackEvent(t *testing.T) {
	api := newSlackAPI(t, "xoxb-e2e")
	base := runBinary(t, fmt.Sprintf(`
provider: {kind: fake}
channels:
  slack:
    bot_token: xoxb-e2e
    signing_secret: e2e-signing-secret
    api_url: %s
`, api.URL))
	raw := readSlackSample(t, "dm_message")
	post := func(secret string, at time.Time, retry string) int {
		return postSlack(base, raw, secret, at, retry)
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
	dm := answeredOnce(t, base, "slack", func() []channeltest.APICall { return api.CallsTo("chat.postMessage") })
	if dm.Params["channel"] != "D024BE91L" || !strings.Contains(dm.Params["text"], "Harrogate Theatre") {
		t.Errorf("chat.postMessage = %v", dm)
	}

	// A mention in a channel starts a conversation of its own, answered in
	// its thread; the follow-up in that thread continues it (the demo
	// provider counts the user's messages it was sent).
	const thread = "1700000100.000200"
	for i, sample := range []string{"app_mention", "thread_mention"} {
		if code := postSlack(base, readSlackSample(t, sample), "e2e-signing-secret", time.Now(), ""); code != http.StatusOK {
			t.Fatalf("%s: %d, want 200", sample, code)
		}
		wait.Eventually(t, "the condition", func() bool { return len(api.CallsTo("chat.postMessage")) == 2+i })
	}
	posts := api.CallsTo("chat.postMessage")
	mention, follow := posts[1], posts[2]
	if mention.Params["channel"] != "C0LAN2Q65" || mention.Params["thread_ts"] != thread || !strings.Contains(mention.Params["text"], "first message in this conversation") {
		t.Errorf("answer to the channel mention = %v, want a first message answered in thread %s (not the DM's conversation)", mention, thread)
	}
	if follow.Params["thread_ts"] != thread || !strings.Contains(follow.Params["text"], "2 messages from you so far") || !strings.Contains(follow.Params["text"], "coffee") {
		t.Errorf("answer to the thread follow-up = %v, want the thread's conversation continued (2 messages, first about coffee)", follow)
	}
}

func readSlackSample(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile("../../../channels/slack/testdata/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// postSlack posts a signed Events API request (a retry when retry is not
// empty) and returns the status (0 when the gateway did not answer).
func postSlack(base, body, secret string, at time.Time, retry string) int {
	header := []string{}
	if retry != "" {
		header = append(header, "X-Slack-Retry-Num", retry)
	}
	return postSlackTo(base+"/webhooks/slack/events", "application/json", body, secret, at, header...)
}

// postSlackTo posts body to url signed as Slack signs it at time at.
func postSlackTo(url, contentType, body, secret string, at time.Time, header ...string) int {
	ts, sig := slackSign(secret, body, at)
	header = append(header, "X-Slack-Request-Timestamp", ts, "X-Slack-Signature", sig)
	return e2e.Post(url, contentType, body, header...)
}
