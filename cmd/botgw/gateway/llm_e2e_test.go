package gateway

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/providers/providertest"
)

// The engine on the real OpenAI and Anthropic providers, against local
// servers speaking each vendor's wire format, with the game's tool
// endpoints on another local server.

func TestOpenAITwoToolCallsThenAnswerAndTheRecordsComeBackNextTurn(t *testing.T) {
	game := newGameAPI(t, func(path string) answer {
		if path == "/api/score" {
			return answer{Status: 200, Body: `{"team":"red","score":1250}`}
		}
		return answer{Status: 200, Body: `["red","blue"]`}
	})
	api := providertest.NewOpenAI(t, inOrder(
		providertest.ToolCalls([3]string{"call_A1", "get_score", `{"team":"red"}`}),
		providertest.ToolCalls([3]string{"call_B2", "list_teams", `{}`}),
		providertest.Completion("Red has 1250 points; red and blue are playing."),
		providertest.Completion("You're welcome!"),
	))
	base := startGateway(t, toolsConfig(openAIAt(api, 0), game))

	if got := chat(t, base, "web:p1", "how is red doing?"); got != "Red has 1250 points; red and blue are playing." {
		t.Fatalf("reply = %q", got)
	}
	reqs, paths := game.requests()
	if !slices.Equal(paths, []string{"POST /api/score", "POST /api/teams"}) {
		t.Fatalf("game requests = %q", paths)
	}
	for _, r := range reqs {
		for h, want := range map[string]string{"X-Botgw-Chat": "web:p1", "X-Botgw-User": "p1",
			"Authorization": "Bearer game-secret", "Content-Type": "application/json"} {
			if got := r.Header.Get(h); got != want {
				t.Errorf("game got %s = %q, want %q", h, got, want)
			}
		}
	}
	if string(reqs[0].Body) != `{"team":"red"}` || string(reqs[1].Body) != `{}` {
		t.Errorf("game bodies = %s, %s", reqs[0].Body, reqs[1].Body)
	}

	first := body(t, api, 0)
	third := body(t, api, 2)
	if len(first.Tools) != 3 || first.Tools[0].Type != "function" || first.Tools[0].Function.Name != "get_score" ||
		first.Tools[2].Function.Name != "offer_choices" ||
		!strings.Contains(string(first.Tools[0].Function.Parameters), `"required":["team"]`) {
		t.Errorf("tools declared = %+v", first.Tools)
	}
	wantTail := []string{"user:how is red doing?", "assistant:->call_A1 get_score", `tool[call_A1]:{"team":"red","score":1250}`,
		"assistant:->call_B2 list_teams", `tool[call_B2]:["red","blue"]`}
	if got := oaShape(third); !slices.Equal(got[1:], wantTail) {
		t.Errorf("third request messages =\n%q\nwant\n%q", got[1:], wantTail)
	}

	// Next turn: the tool records come back from the stored state, ids matched.
	if got := chat(t, base, "web:p1", "thanks"); got != "You're welcome!" {
		t.Fatalf("second turn reply = %q", got)
	}
	fourth := body(t, api, 3)
	want := append(append([]string{}, wantTail...), "assistant:Red has 1250 points; red and blue are playing.", "user:thanks")
	if got := oaShape(fourth); !slices.Equal(got[1:], want) {
		t.Errorf("next turn messages =\n%q\nwant\n%q", got[1:], want)
	}
}

// oaShape renders a Chat Completions request's messages as role:content,
// assistant tool calls as ->id name, tool results as tool[id]:content.
func oaShape(r oaRequest) []string {
	var out []string
	for _, m := range r.Messages {
		switch {
		case len(m.ToolCalls) > 0:
			for _, c := range m.ToolCalls {
				out = append(out, fmt.Sprintf("assistant:->%s %s", c.ID, c.Function.Name))
			}
		case m.Role == "tool":
			out = append(out, fmt.Sprintf("tool[%s]:%v", m.ToolCallID, m.Content))
		default:
			out = append(out, fmt.Sprintf("%s:%v", m.Role, m.Content))
		}
	}
	return out
}

func TestAnthropicToolEndpointFailureGoesToTheModelNotTheUser(t *testing.T) {
	game := newGameAPI(t, func(string) answer { return answer{Status: 500, Body: `{"error":"scores database unavailable"}`} })
	api := providertest.NewAnthropic(t, inOrder(
		providertest.AnthropicToolUse("toolu_01A", "get_score", `{"team":"red"}`),
		providertest.AnthropicText("I can't reach the scoreboard right now; try again in a minute."),
		providertest.AnthropicText("Sure."),
	))
	base := startGateway(t, toolsConfig(anthropicAt(api, 0), game))

	if got := chat(t, base, "web:p2", "red's score?"); got != "I can't reach the scoreboard right now; try again in a minute." {
		t.Fatalf("reply = %q", got)
	}
	second := body(t, api, 1)
	if n := len(second.Messages); n != 3 {
		t.Fatalf("second request has %d messages, want user, assistant tool_use, user tool_result", n)
	}
	use := second.Messages[1].Content[1]
	result := second.Messages[2].Content[0]
	if use.Type != "tool_use" || use.ID != "toolu_01A" || string(use.Input) != `{"team":"red"}` {
		t.Errorf("assistant block = %+v", use)
	}
	if result.Type != "tool_result" || result.ToolUseID != "toolu_01A" || !isError(result) ||
		!strings.Contains(result.Content[0].Text, `status 500 Internal Server Error: {\"error\":\"scores database unavailable\"}`) {
		t.Errorf("tool result = %+v", result)
	}
	if calls := api.Calls(); calls[0].Header.Get("X-Api-Key") != "sk-ant-test" || calls[0].Header.Get("Anthropic-Version") == "" {
		t.Errorf("headers = %v", calls[0].Header)
	}

	// The failed call is stored and sent again, in the same shape, next turn.
	chat(t, base, "web:p2", "ok")
	third := body(t, api, 2)
	if got := third.Messages[2].Content[0]; got.ToolUseID != "toolu_01A" || !isError(got) {
		t.Errorf("next turn tool result = %+v", got)
	}
}

func TestAnthropicMaxToolCallsEndsWithAnAnswer(t *testing.T) {
	game := newGameAPI(t, func(string) answer { return answer{Status: 200, Body: `{"score":1}`} })
	api := providertest.NewAnthropic(t, providertest.Script(func(n int) answer {
		if n < 2 {
			return providertest.AnthropicToolUse(fmt.Sprintf("toolu_%02d", n), "get_score", `{"team":"red"}`)
		}
		return providertest.AnthropicText("Red has 1 point.")
	}))
	cfg := toolsConfig(anthropicAt(api, 0), game)
	cfg.MaxToolCalls = 2
	base := startGateway(t, cfg)

	if got := chat(t, base, "web:p3", "score?"); got != "Red has 1 point." {
		t.Fatalf("reply = %q", got)
	}
	if _, paths := game.requests(); len(paths) != 2 {
		t.Errorf("%d tool calls, want max_tool_calls = 2", len(paths))
	}
	last := body(t, api, 2)
	if string(last.ToolChoice) != `{"type":"none"}` {
		t.Errorf("after the limit tool_choice = %s, want none", last.ToolChoice)
	}
	if len(last.Tools) == 0 {
		t.Error("after the limit the used tools must still be declared (the API refuses tool_use blocks otherwise)")
	}
}

func TestOpenAIRateLimitWithRetryAfterThenSuccess(t *testing.T) {
	api := providertest.NewOpenAI(t, providertest.Script(func(n int) answer {
		if n == 0 {
			a := providertest.OpenAIStatus(429)
			a.Header = map[string]string{"Retry-After": "1"}
			return a
		}
		return providertest.Completion("Hello!")
	}))
	base := startGateway(t, llmConfig(openAIAt(api, 2)))
	if got := chat(t, base, "web:p4", "hi"); got != "Hello!" {
		t.Fatalf("reply = %q", got)
	}
	calls := api.Calls()
	if len(calls) != 2 {
		t.Fatalf("%d calls, want the 429 and one retry", len(calls))
	}
	if gap := calls[1].At.Sub(calls[0].At); gap < 900*time.Millisecond {
		t.Errorf("retried after %v, want at least Retry-After: 1s", gap)
	}
	if calls[0].Header.Get("Authorization") != "Bearer sk-test" || string(calls[0].Raw) != string(calls[1].Raw) {
		t.Errorf("the retry is not the same request")
	}
}

func TestProviderDownGivesTheConfiguredApologyAndKeepsTheMessage(t *testing.T) {
	var healthy atomic.Bool
	api := providertest.NewAnthropic(t, providertest.Script(func(n int) answer {
		if !healthy.Load() {
			return providertest.AnthropicError(529, "overloaded_error", "Overloaded")
		}
		return providertest.AnthropicText("Back again!")
	}))
	cfg := llmConfig(anthropicAt(api, 1))
	cfg.Apology = "The game's assistant is resting; please try again soon."
	base := startGateway(t, cfg)
	if got := chat(t, base, "web:p5", "where is the theatre?"); got != cfg.Apology {
		t.Fatalf("reply = %q, want the configured apology", got)
	}
	if n := len(api.Calls()); n != 2 {
		t.Errorf("%d attempts, want 2 (max_retries 1)", n)
	}
	healthy.Store(true)
	chat(t, base, "web:p5", "hello?")
	req := body(t, api, 2)
	texts := []string{}
	for _, b := range req.Messages[0].Content {
		texts = append(texts, b.Text)
	}
	if len(req.Messages) != 1 || !slices.Equal(texts, []string{"where is the theatre?", "hello?"}) {
		t.Errorf("next request = %+v, want both user messages (the apology is not history)", req.Messages)
	}
}

func TestFallbackAnswersAndTheStateFollowsBackToThePrimary(t *testing.T) {
	var primaryUp atomic.Bool
	primary := providertest.NewOpenAI(t, providertest.Script(func(n int) answer {
		if !primaryUp.Load() {
			return providertest.OpenAIStatus(503)
		}
		return providertest.Completion("OpenAI here.")
	}))
	secondary := providertest.NewAnthropic(t, providertest.Script(func(int) answer { return providertest.AnthropicText("Claude here.") }))
	pc := openAIAt(primary, 0)
	fb := anthropicAt(secondary, 0)
	pc.Fallback = &fb
	cfg := llmConfig(pc)
	cfg.Admin.Token = opsToken
	base := startGateway(t, cfg)

	if got := chat(t, base, "web:p6", "hi"); got != "Claude here." {
		t.Fatalf("reply with the primary down = %q, want the fallback's", got)
	}
	if v := showChat(t, base, "web:p6"); v.Provider != "anthropic/claude-haiku-4-5" {
		t.Errorf("state locked to %q after the fallback answered, want anthropic/claude-haiku-4-5", v.Provider)
	}
	fbReq := body(t, secondary, 0)
	if fbReq.Model != "claude-haiku-4-5" || fbReq.Messages[0].Content[0].Text != "hi" {
		t.Errorf("fallback request = %+v", fbReq)
	}
	primaryUp.Store(true)
	if got := chat(t, base, "web:p6", "and now?"); got != "OpenAI here." {
		t.Fatalf("reply with the primary back = %q", got)
	}
	req := body(t, primary, 1)
	want := []string{"user:hi", "assistant:Claude here.", "user:and now?"}
	if got := oaShape(req); !slices.Equal(got[1:], want) {
		t.Errorf("primary's request after the fail-over = %q, want the history kept %q", got[1:], want)
	}
	if v := showChat(t, base, "web:p6"); v.Provider != "openai/gpt-4o-mini" {
		t.Errorf("state locked to %q once the primary answered again, want openai/gpt-4o-mini", v.Provider)
	}
}

func TestToolsConfigFromYAML(t *testing.T) {
	t.Setenv("GAME_API_TOKEN", "tok-123")
	path := e2e.WriteFile(t, `
provider: {kind: fake}
channels: {web: {}}
max_tool_calls: 3
apology: "Oops, try again."
limits: {daily_tokens_per_chat: 20000, turns_per_minute_per_chat: 6}
tools:
  - name: get_score
    description: The player's score.
    url: https://game.example/api/score
    headers: {Authorization: "Bearer ${GAME_API_TOKEN}"}
    timeout: 5s
    parameters:
      type: object
      properties:
        team: {type: string, enum: [red, blue]}
      required: [team]
`)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	tool := cfg.Tools[0]
	if tool.Headers["Authorization"] != "Bearer tok-123" || tool.Timeout != 5*time.Second || cfg.MaxToolCalls != 3 ||
		cfg.Limits.TurnsPerMinutePerChat != 6 || cfg.Apology != "Oops, try again." {
		t.Errorf("config = %+v", cfg)
	}
	params, _ := json.Marshal(tool.Parameters)
	if string(params) != `{"properties":{"team":{"enum":["red","blue"],"type":"string"}},"required":["team"],"type":"object"}` {
		t.Errorf("parameters as JSON = %s", params)
	}
	cfg.Tools = append(cfg.Tools, cfg.Tools[0])
	cfg.Tools[1].URL = "game.example/x"
	cfg.Limits.TurnsPerMinutePerChat = 500
	err = cfg.Validate()
	for _, want := range []string{"tools[1].name:", "tools[1].url:", "limits.turns_per_minute_per_chat:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to name %s", err, want)
		}
	}
}
