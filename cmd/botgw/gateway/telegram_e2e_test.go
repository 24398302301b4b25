package gateway

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/botgw/botgw/channels/channeltest"
)

const e2eBotToken = "7000000001:AAH-e2e_Token"

// newBotAPI is the fake Bot API (channeltest) of the e2e bot.
func newBotAPI(t testing.TB) *channeltest.BotAPI {
	return channeltest.NewBotAPI(t, e2eBotToken, "GameBot")
}

func TestBinaryAnswersATelegramUpdate(t *testing.T) {
	api := newBotAPI(t)
	base := runBinary(t, fmt.Sprintf(`
provider: {kind: fake}
channels:
  telegram:
    token: "%s"
    webhook_secret: e2e-secret
    api_url: %s
`, e2eBotToken, api.URL))
	update, err := os.ReadFile("../../../channels/telegram/testdata/private_text.json")
	if err != nil {
		t.Fatal(err)
	}
	post := func(secret string) int { return postTelegram(base, secret, string(update)) }
	if code := post("wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong secret: %d, want 401", code)
	}
	if code := post("e2e-secret"); code != http.StatusOK {
		t.Fatalf("update: %d, want 200", code)
	}
	if code := post("e2e-secret"); code != http.StatusOK { // Telegram redelivers
		t.Fatalf("redelivered update: %d, want 200", code)
	}
	msg := answeredOnce(t, base, "telegram", func() []channeltest.APICall { return api.CallsTo("sendMessage") })
	if msg.Params["chat_id"] != "123456789" || !strings.Contains(msg.Params["text"], "Where is the next clue?") {
		t.Errorf("sendMessage = %v", msg.Params)
	}
}
