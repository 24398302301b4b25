package gateway

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/botgw/botgw/providers/providertest"
)

// BenchmarkSlackAckWithBlockedProvider measures the Events API ack through
// the whole gateway (signature check, normalising, durable append in the
// embedded Redis) while every turn is stuck at the provider: the ack does
// not wait for the LLM.
func BenchmarkSlackAckWithBlockedProvider(b *testing.B) {
	block := make(chan struct{})
	llm := providertest.NewOpenAI(b, func(_ int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
		providertest.OpenAIStatus(http.StatusServiceUnavailable).Write(w)
	})
	defer close(block)
	slackAPI := newSlackAPI(b, "xoxb-bench")
	cfg := DefaultConfig()
	cfg.Channels.Web = nil
	cfg.Channels.Slack = &slackConfig{BotToken: "xoxb-bench", SigningSecret: "bench-secret", APIURL: slackAPI.URL, ThinkingReaction: "none"}
	none := 0
	cfg.Provider = ProviderConfig{Kind: "openai", BaseURL: llm.URL + "/v1", APIKey: "sk-bench", Model: "gpt-4o-mini", MaxRetries: &none}
	base := startGateway(b, cfg)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		body := fmt.Sprintf(`{"type":"event_callback","event_id":"Ev%d","event_time":1700000000,"team_id":"T1",
"event":{"type":"message","channel_type":"im","channel":"D%d","user":"U1","text":"hello","ts":"1700000000.%06d"}}`, i, i%500, i)
		if code := postSlack(base, body, "bench-secret", time.Now(), ""); code != http.StatusOK {
			b.Fatalf("ack: %d", code)
		}
	}
}
