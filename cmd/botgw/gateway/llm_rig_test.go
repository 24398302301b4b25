package gateway

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/web"
	"github.com/botgw/botgw/convo/tools"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/providers/providertest"
)

// answer is a scripted HTTP answer (status, header, body).
type answer = providertest.Answer

// The model APIs' requests as the fakes (providertest) read them.
type (
	oaRequest = providertest.OpenAIRequest
	anRequest = providertest.AnthropicRequest
)

// body is the request of call n to a fake model API.
func body[Req any](t *testing.T, api *providertest.Server[Req], n int) Req {
	t.Helper()
	calls := api.Calls()
	if n >= len(calls) {
		t.Fatalf("%d calls, want call %d", len(calls), n)
	}
	return calls[n].Body
}

// isError reports a tool_result block marked as an error.
func isError(b providertest.AnthropicBlock) bool { return b.IsError != nil && *b.IsError }

// gameCall is one request the game's backend received.
type gameCall struct {
	Header http.Header
	Body   []byte
}

// gameAPI is the game's backend behind the tools.
type gameAPI struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []gameCall
	path []string
}

func newGameAPI(t *testing.T, respond func(path string) answer) *gameAPI {
	t.Helper()
	g := &gameAPI{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		g.mu.Lock()
		g.reqs = append(g.reqs, gameCall{Header: r.Header.Clone(), Body: b})
		g.path = append(g.path, r.Method+" "+r.URL.Path)
		g.mu.Unlock()
		a := respond(r.URL.Path)
		w.WriteHeader(a.Status)
		io.WriteString(w, a.Body)
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *gameAPI) requests() ([]gameCall, []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]gameCall(nil), g.reqs...), append([]string(nil), g.path...)
}

// gameTools declares get_score and list_teams on the game's backend.
func gameTools(base string) []tools.Config {
	return []tools.Config{
		{Name: "get_score", Description: "The score of a team.", URL: base + "/api/score",
			Parameters: map[string]any{"type": "object", "required": []any{"team"},
				"properties": map[string]any{"team": map[string]any{"type": "string"}}},
			Headers: map[string]string{"Authorization": "Bearer game-secret"}},
		{Name: "list_teams", Description: "The teams playing now.", URL: base + "/api/teams",
			Headers: map[string]string{"Authorization": "Bearer game-secret"}},
	}
}

// toolsConfig is llmConfig with the game's tools (gameTools) on game.
func toolsConfig(pc ProviderConfig, game *gameAPI) Config {
	cfg := llmConfig(pc)
	cfg.Tools = gameTools(game.URL)
	return cfg
}

// inOrder answers the model's call n with script[n].
func inOrder(script ...answer) providertest.Respond {
	return providertest.Script(func(n int) answer { return script[n] })
}

// llmConfig is a web-channel gateway on the given provider.
func llmConfig(pc ProviderConfig) Config {
	cfg := DefaultConfig()
	// One test client plays many players from one address.
	cfg.Channels.Web = &web.Config{ReplyTimeout: 30 * time.Second, PerClientPerMinute: 100_000}
	cfg.Compaction.Strategy = "none"
	cfg.Provider = pc
	return cfg
}

func openAIAt(v *providertest.OpenAI, retries int) ProviderConfig {
	return ProviderConfig{Kind: "openai", BaseURL: v.URL + "/v1", APIKey: "sk-test", Model: "gpt-4o-mini", MaxRetries: &retries}
}

func anthropicAt(v *providertest.Anthropic, retries int) ProviderConfig {
	return ProviderConfig{Kind: "anthropic", BaseURL: v.URL, APIKey: "sk-ant-test", Model: "claude-haiku-4-5", MaxRetries: &retries}
}

// chat sends one web message and returns the reply.
func chat(t *testing.T, base, chatKey, text string) string {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"chat": chatKey, "text": text})
	status, v := e2e.PostJSON(t, base+"/v1/chat", string(b))
	reply, _ := v["reply"].(string)
	if status != 200 || reply == "" {
		t.Fatalf("chat %q: %d %v", text, status, v)
	}
	return reply
}
