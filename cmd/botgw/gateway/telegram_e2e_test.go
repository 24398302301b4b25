package gateway

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/providertest"
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

// The webhook's 200 to a player's message shows "typing", and a turn that
// waits a second on the model makes no typing call of its own: Telegram's
// "typing" lasts until the reply, for the first message and for the next
// one the player writes after reading that reply.
func TestTypingComesWithTheWebhooksAnswer(t *testing.T) {
	api := newBotAPI(t)
	model := providertest.NewOpenAI(t, providertest.Delayed(time.Second, providertest.Always(providertest.Completion("Try the theatre."))))
	cfg, err := LoadConfig(e2e.WriteFile(t, fmt.Sprintf(`
channels:
  telegram: {token: "%s", webhook_secret: e2e-secret, api_url: %s}
`, e2eBotToken, api.URL)))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Provider = openAIAt(model, 0)
	base := startGateway(t, cfg)
	for i, text := range []string{"where next?", "and after that?"} {
		update := fmt.Sprintf(`{"update_id":%d,"message":{"message_id":%d,"date":%d,"text":%q,`+
			`"from":{"id":4242,"is_bot":false,"first_name":"Ada"},"chat":{"id":4242,"type":"private","first_name":"Ada"}}}`,
			9000+i, 100+i, time.Now().Unix(), text)
		req, _ := http.NewRequest(http.MethodPost, base+"/webhooks/telegram", strings.NewReader(update))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", "e2e-secret")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if want := `{"method":"sendChatAction","chat_id":4242,"action":"typing"}`; res.StatusCode != http.StatusOK || string(answer) != want {
			t.Fatalf("message %d: %d %s, want 200 %s", i+1, res.StatusCode, answer, want)
		}
		wait.Eventually(t, fmt.Sprintf("reply %d", i+1), func() bool { return len(api.CallsTo("sendMessage")) == i+1 })
	}
	if calls := api.CallsTo("sendChatAction"); len(calls) != 0 {
		t.Errorf("%d sendChatAction calls (%v), want none: the webhook's answers showed typing until each reply", len(calls), calls)
	}
}
