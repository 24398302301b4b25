package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw/providers/providertest"
)

// BenchmarkTelegramTurn is one whole turn through the gateway, as the load
// harness drives it: a Telegram webhook update in, the model (a local
// OpenAI-compatible server answering at once) called with the history,
// the state committed, the reply posted to the Bot API, the chat finished.
// 50 chats take turns, so histories grow to a few dozen messages. On real
// Redis with BOTGW_TEST_REDIS_URL, else on the embedded one. The fake
// servers run in the same process, so their allocations count too.
func BenchmarkTelegramTurn(b *testing.B) {
	replies := make(chan string, 1)
	botAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !strings.HasSuffix(r.URL.Path, "/sendMessage") {
			fmt.Fprint(w, `{"ok":true,"result":true}`)
			return
		}
		_ = r.ParseMultipartForm(1 << 20)
		chat := r.FormValue("chat_id")
		fmt.Fprintf(w, `{"ok":true,"result":{"message_id":1,"date":1,"chat":{"id":%s,"type":"private"},"text":"ok"}}`, chat)
		replies <- chat
	}))
	defer botAPI.Close()
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		providertest.Completion("Head north past the fountain, then look for the blue door.").Write(w)
	}))
	defer llm.Close()

	cfg := DefaultConfig()
	cfg.Channels.Web = nil
	cfg.Redis.URL = os.Getenv("BOTGW_TEST_REDIS_URL")
	cfg.Redis.KeyPrefix = fmt.Sprintf("botgwbench%d", time.Now().UnixNano())
	cfg.Channels.Telegram = &telegramConfig{Token: e2eBotToken, Mode: "webhook", WebhookSecret: "bench-secret",
		APIURL: botAPI.URL, RatePerSecond: 1e6, Burst: 1e6}
	none := 0
	cfg.Provider = ProviderConfig{Kind: "openai", BaseURL: llm.URL + "/v1", APIKey: "sk-bench", Model: "gpt-4o-mini", MaxRetries: &none}
	base := startGateway(b, cfg)
	if cfg.Redis.URL != "" {
		b.Cleanup(func() { dropKeys(b, cfg.Redis.URL, cfg.Redis.KeyPrefix+":*") })
	}

	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		chat := 1000 + i%50
		update := fmt.Sprintf(`{"update_id":%d,"message":{"message_id":%d,"date":1732270000,`+
			`"chat":{"id":%d,"type":"private","first_name":"Ada"},"from":{"id":%d,"is_bot":false,"first_name":"Ada"},`+
			`"text":"I'm at the clock tower, where is the next clue?"}}`, i+1, i+1, chat, chat)
		if code := postTelegram(base, "bench-secret", update); code != http.StatusOK {
			b.Fatalf("webhook: %d", code)
		}
		select {
		case got := <-replies:
			if got != fmt.Sprint(chat) {
				b.Fatalf("reply to chat %s, want %d", got, chat)
			}
		case <-time.After(10 * time.Second):
			b.Fatal("no reply within 10s")
		}
	}
}

// dropKeys deletes the keys matching pattern from the test Redis.
func dropKeys(b *testing.B, url, pattern string) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		b.Error(err)
		return
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx := context.Background()
	iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		c.Del(ctx, iter.Val())
	}
	if err := iter.Err(); err != nil {
		b.Error(err)
	}
}
