package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/botgw/botgw/internal/e2e"
)

// checkFails runs `botgw config check` on config (YAML text), fails the
// test if the check passes or its output misses one of want, and returns
// the output.
func checkFails(t *testing.T, config string, want ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"config", "check", "-config", e2e.WriteFile(t, config)}, &out, &errOut); err == nil {
		t.Fatalf("config check passed a bad file:%s", config)
	}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
	return out.String()
}

func TestConfigCheckNamesEveryBadKey(t *testing.T) {
	out := checkFails(t, `
listen: "127.0.0.1:8080"
redis:
  url: ""
  colour: blue
state:
  ttl: forever
provider:
  kind: fake
channels:
  telegram:
    mode: webhook
    webhook_secret: abc
`,
		"redis.colour: unknown key", "state.ttl:", "channels.telegram.token: required")
	if n := strings.Count(strings.TrimSpace(out), "\n") + 1; n != 3 {
		t.Errorf("printed %d problems, want 3:\n%s", n, out)
	}
}

func TestExampleConfigPasses(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET", "SLACK_BOT_TOKEN",
		"SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "BOTGW_EVENTS_SECRET", "BOTGW_ADMIN_TOKEN", "GAME_API_TOKEN", "BOTGW_STREAM_SECRET",
		"WA_ACCESS_TOKEN", "WA_APP_SECRET", "WA_VERIFY_TOKEN"} {
		t.Setenv(v, "example-"+strings.ToLower(v))
	}
	t.Setenv("TELEGRAM_BOT_TOKEN", "123456:ABC-example")
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-example")
	t.Setenv("SLACK_APP_TOKEN", "xapp-example")
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"config", "check", "-config", "../../config.example.yaml"}, &out, &errOut); err != nil {
		t.Fatalf("config.example.yaml fails config check: %v\n%s%s", err, out.String(), errOut.String())
	}
}

// TestConfigRefusesWebOperators: a web chat user is whatever id the
// browser sends, so naming one an operator would hand operator commands
// to anyone.
func TestConfigRefusesWebOperators(t *testing.T) {
	checkFails(t, `
admin:
  operators:
    web: ["alice"]
    telegram: ["123"]
`,
		"admin.operators.web: the web chat has no verified users", "admin.operators.telegram: no such channel")
}

func TestConfigCheckNamesBadLimitsAndWebKeys(t *testing.T) {
	out := checkFails(t, `
provider: {kind: fake}
limits: {max_input_chars: 0}
channels:
  web: {allowed_origins: ["game.example.com", "https://ok.example"], token: "a b"}
`,
		"limits.max_input_chars:", "channels.web.allowed_origins[0]:", "channels.web.token:")
	if strings.Contains(out, "allowed_origins[1]") {
		t.Errorf("a good origin was refused:\n%s", out)
	}
}
