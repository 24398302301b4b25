package gateway

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/e2e"
)

// allChannelsGateway runs a gateway with every HTTP channel and API on.
func allChannelsGateway(t *testing.T) string {
	t.Helper()
	tg, sl := newBotAPI(t), newSlackAPI(t, "xoxb-e2e")
	cfg, err := LoadConfig(e2e.WriteFile(t, fmt.Sprintf(`
provider: {kind: fake}
events: {secret: ev-secret}
admin: {token: admin-token}
channels:
  web: {}
  telegram: {token: "%s", webhook_secret: e2e-secret, api_url: %s}
  slack: {bot_token: xoxb-e2e, signing_secret: e2e-signing-secret, api_url: %s}
`, e2eBotToken, tg.URL, sl.URL)))
	if err != nil {
		t.Fatal(err)
	}
	return startGateway(t, cfg)
}

func TestEveryOversizeBodyIs413(t *testing.T) {
	base := allChannelsGateway(t)
	big := `{"text":"` + strings.Repeat("x", 9<<20) + `"}`
	ts, sig := slackSign("e2e-signing-secret", big, time.Now())
	for _, c := range []struct {
		method, path string
		header       []string
	}{
		{"POST", "/webhooks/telegram", []string{"X-Telegram-Bot-Api-Secret-Token", "e2e-secret"}},
		{"POST", "/webhooks/slack/events", []string{"X-Slack-Request-Timestamp", ts, "X-Slack-Signature", sig}},
		{"POST", "/v1/chat", nil},
		{"POST", "/v1/events", []string{"Authorization", "Bearer ev-secret"}},
		{"PUT", "/v1/admin/chats/web:a/export", []string{"Authorization", "Bearer admin-token"}},
	} {
		req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(big))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(c.header); i += 2 {
			req.Header.Set(c.header[i], c.header[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", c.method, c.path, err)
			continue
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("%s %s with a 9 MiB body: %d %s, want 413", c.method, c.path, res.StatusCode, b)
		}
	}
}
