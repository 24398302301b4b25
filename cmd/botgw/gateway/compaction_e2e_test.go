package gateway

import (
	"fmt"
	"slices"
	"testing"

	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/providers/providertest"
)

// A composed compaction from the config file: last_n only once the history
// passes five messages (trimmed in batches), then a token budget. It passes
// config check and the model's requests show both steps at work.
func TestComposedCompactionFromTheConfigFile(t *testing.T) {
	api := providertest.NewOpenAI(t, providertest.Script(func(n int) answer { return providertest.Completion(fmt.Sprint("reply ", n)) }))
	p := e2e.WriteFile(t, fmt.Sprintf(`
provider: {kind: openai, base_url: %q, api_key: sk-test, model: gpt-4o-mini, max_retries: 0}
channels:
  web: {reply_timeout: 30s}
compaction:
  chain:
    - strategy: last_n
      max_exchanges: 1
      when: {messages_over: 5}
    - strategy: token_budget
      max_tokens: 4000
`, api.URL+"/v1"))
	cfg, err := LoadConfig(p)
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		t.Fatalf("config check: %v", err)
	}
	base := startGateway(t, cfg)
	for i := range 5 {
		if got := chat(t, base, "web:p1", fmt.Sprint("message ", i)); got != fmt.Sprint("reply ", i) {
			t.Fatalf("reply %d = %q", i, got)
		}
	}
	for n, want := range map[int][]string{
		2: {"user:message 0", "assistant:reply 0", "user:message 1", "assistant:reply 1", "user:message 2"},
		3: {"user:message 2", "assistant:reply 2", "user:message 3"},
		4: {"user:message 2", "assistant:reply 2", "user:message 3", "assistant:reply 3", "user:message 4"},
	} {
		req := body(t, api, n)
		if got := oaShape(req)[1:]; !slices.Equal(got, want) {
			t.Errorf("request %d holds\n%q\nwant\n%q", n, got, want)
		}
	}
}
