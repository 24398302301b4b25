package gateway

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
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
	wait.Eventually(t, "the condition", func() bool { return len(api.CallsTo("sendMessage")) > 0 })
	// the redelivery was refused as a duplicate and no turn is left to run
	quiesced(t, base, `botgw_inbound_total{channel="telegram",outcome="duplicate"} 1`,
		`botgw_deliveries_total{channel="telegram",result="ok"} 1`)
	msgs := api.CallsTo("sendMessage")
	if len(msgs) != 1 {
		t.Fatalf("sendMessage called %d times, want 1 (the redelivery is a duplicate)", len(msgs))
	}
	if msgs[0].Params["chat_id"] != "123456789" || !strings.Contains(msgs[0].Params["text"], "Where is the next clue?") {
		t.Errorf("sendMessage = %v", msgs[0].Params)
	}
}
