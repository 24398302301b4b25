package gateway

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/wait"
)

// Input the store can never hold is acknowledged, not refused with 503 for
// the platform to redeliver forever: a Telegram date and a Slack ts past
// the year 9999 (answered, with the arrival time), a Slack channel id with
// braces or a newline (ignored). Each is posted twice, as a platform
// retrying would.
func TestBinaryAcknowledgesPoisonInput(t *testing.T) {
	tg, slackAPI := newBotAPI(t), newSlackAPI(t, "xoxb-e2e")
	base := runBinary(t, fmt.Sprintf(`
provider: {kind: fake}
channels:
  telegram: {token: "%s", webhook_secret: e2e-secret, api_url: %s}
  slack: {bot_token: xoxb-e2e, signing_secret: e2e-signing-secret, api_url: %s}
`, e2eBotToken, tg.URL, slackAPI.URL))
	update := strings.Replace(tgText(4242, 1, "hello from the future"), `"date":1732270000`, `"date":253402300800`, 1)
	dm := readSlackSample(t, "dm_message")
	slackPoison := map[string]string{
		"ts past 9999": strings.ReplaceAll(dm, "1700000000.000100", "253402300800.000100"),
		"braces":       strings.ReplaceAll(dm, "D024BE91L", "D0{24}"),
		"newline":      strings.ReplaceAll(dm, "D024BE91L", `D0\n24`),
	}
	for range 2 {
		if code := postTelegram(base, "e2e-secret", update); code != http.StatusOK {
			t.Fatalf("telegram update dated year 10000: %d, want 200", code)
		}
		for name, body := range slackPoison {
			if code := postSlack(base, body, "e2e-signing-secret", time.Now(), ""); code != http.StatusOK {
				t.Errorf("slack event with %s: %d, want 200", name, code)
			}
		}
	}
	wait.Eventually(t, "the condition", func() bool { return sentTo(tg, 4242) == 1 && len(slackAPI.CallsTo("chat.postMessage")) == 1 })
}
