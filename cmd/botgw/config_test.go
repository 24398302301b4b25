package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/botgw/botgw/internal/e2e"
)

func TestConfigCheckNamesEveryBadKey(t *testing.T) {
	p := e2e.WriteFile(t, `
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
`)
	var out, errOut bytes.Buffer
	err := run(t.Context(), []string{"config", "check", "-config", p}, &out, &errOut)
	if err == nil {
		t.Fatal("config check passed a bad file")
	}
	for _, key := range []string{"redis.colour: unknown key", "state.ttl:", "channels.telegram.token: required"} {
		if !strings.Contains(out.String(), key) {
			t.Errorf("output lacks %q:\n%s", key, out.String())
		}
	}
	if n := strings.Count(strings.TrimSpace(out.String()), "\n") + 1; n != 3 {
		t.Errorf("printed %d problems, want 3:\n%s", n, out.String())
	}
}

func TestExampleConfigPasses(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET", "SLACK_BOT_TOKEN",
		"SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "BOTGW_EVENTS_SECRET", "BOTGW_ADMIN_TOKEN", "GAME_API_TOKEN", "BOTGW_STREAM_SECRET"} {
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
	p := e2e.WriteFile(t, `
admin:
  operators:
    web: ["alice"]
    telegram: ["123"]
`)
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"config", "check", "-config", p}, &out, &errOut); err == nil {
		t.Fatal("config check passed web operators")
	}
	for _, want := range []string{"admin.operators.web: the web chat has no verified users", "admin.operators.telegram: no such channel"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestConfigCheckNamesBadLimitsAndWebKeys(t *testing.T) {
	p := e2e.WriteFile(t, `
provider: {kind: fake}
limits: {max_input_chars: 0}
channels:
  web: {allowed_origins: ["game.example.com", "https://ok.example"], token: "a b"}
`)
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"config", "check", "-config", p}, &out, &errOut); err == nil {
		t.Fatal("config check passed a bad file")
	}
	for _, key := range []string{"limits.max_input_chars:", "channels.web.allowed_origins[0]:", "channels.web.token:"} {
		if !strings.Contains(out.String(), key) {
			t.Errorf("output lacks %q:\n%s", key, out.String())
		}
	}
	if strings.Contains(out.String(), "allowed_origins[1]") {
		t.Errorf("a good origin was refused:\n%s", out.String())
	}
}
