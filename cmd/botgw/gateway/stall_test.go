package gateway

import (
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
)

// TestWebhooksAnswerWhileRedisStalls pauses the gateway's own redis-server
// (SIGSTOP) for 10 s while Telegram and Slack keep delivering: every
// webhook is answered within 5 s (503 when the input could not be stored),
// and once Redis is back the platforms' redeliveries are stored and
// answered exactly once each.
func TestWebhooksAnswerWhileRedisStalls(t *testing.T) {
	rs := startRedis(t)
	tg := channeltest.NewBotAPI(t, e2eBotToken, "stall_bot")
	sl := newSlackAPI(t, "xoxb-e2e")
	r := startReplica(t, "stall", fmt.Sprintf(`
redis: {url: %q, key_prefix: stall}
provider: {kind: fake}
compaction: {strategy: none}
channels:
  telegram: {token: %q, webhook_secret: %s, api_url: %q}
  slack: {bot_token: xoxb-e2e, signing_secret: %s, api_url: %q}
admin: {token: %s}
log: {level: error, format: text}
`, rs.url(), e2eBotToken, faultSecret, tg.URL, strangerSlackSecret, sl.URL, faultAdminToken))
	if code := postUpdate(r.base, tgText(500, 1, "before the stall")); code != http.StatusOK {
		t.Fatalf("update before the stall: %d", code)
	}
	slackEvent := readSlackSample(t, "dm_message")
	client := &http.Client{Timeout: 5 * time.Second} // a webhook must answer within 5 s
	send := func(chat int64) (tgCode, slCode int, err error) {
		req, _ := http.NewRequest(http.MethodPost, r.base+"/webhooks/telegram", strings.NewReader(tgText(chat, 1, "during the stall")))
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", faultSecret)
		res, err := client.Do(req)
		if err != nil {
			return 0, 0, fmt.Errorf("telegram webhook: %w", err)
		}
		res.Body.Close()
		ts, sig := slackSign(strangerSlackSecret, slackEvent, time.Now())
		req, _ = http.NewRequest(http.MethodPost, r.base+"/webhooks/slack/events", strings.NewReader(slackEvent))
		req.Header.Set("X-Slack-Request-Timestamp", ts)
		req.Header.Set("X-Slack-Signature", sig)
		sres, err := client.Do(req)
		if err != nil {
			return res.StatusCode, 0, fmt.Errorf("slack webhook: %w", err)
		}
		sres.Body.Close()
		return res.StatusCode, sres.StatusCode, nil
	}

	if err := rs.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stalled := time.Now()
	refused := 0
	for chat := int64(501); time.Since(stalled) < 10*time.Second; chat++ {
		tgCode, slCode, err := send(chat % 4) // four chats, redelivered over and over
		if err != nil {
			_ = rs.cmd.Process.Signal(syscall.SIGCONT)
			t.Fatalf("%.1f s into the stall: %v", time.Since(stalled).Seconds(), err)
		}
		for _, code := range []int{tgCode, slCode} {
			if code == http.StatusServiceUnavailable {
				refused++
			} else if code != http.StatusOK {
				t.Errorf("during the stall: %d, want 503 (or 200)", code)
			}
		}
	}
	if err := rs.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if refused == 0 {
		t.Fatal("no webhook was refused during a 10 s stall: was Redis paused?")
	}
	for chat := range int64(4) { // the platforms redeliver until a 200
		deliver(t, []*replica{r}, 0, tgText(chat, 1, "during the stall"))
		wait.Eventually(t, "the condition", func() bool { return sentTo(tg, chat) >= 1 })
	}
	wait.Eventually(t, "the condition", func() bool {
		code := postSlack(r.base, slackEvent, strangerSlackSecret, time.Now(), "1")
		return code == http.StatusOK && len(sl.CallsTo("chat.postMessage")) >= 1
	})
	quiesced(t, r.base)
	for chat := range int64(4) {
		if n := sentTo(tg, chat); n != 1 {
			t.Errorf("telegram chat %d answered %d times, want once", chat, n)
		}
		v, err := adminChat(r.base, chat)
		if err != nil {
			t.Fatal(err)
		}
		if lines := userLines(v.History); len(lines) != 1 || lines[0] != "during the stall" {
			t.Errorf("telegram chat %d history %q, want the message once", chat, lines)
		}
	}
	if n := len(sl.CallsTo("chat.postMessage")); n != 1 {
		t.Errorf("the slack event was answered %d times, want once", n)
	}
}
