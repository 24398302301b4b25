package main

import (
	"testing"
	"time"

	"github.com/botgw/botgw/cmd/botgw/gateway"
	"github.com/botgw/botgw/internal/e2e"
)

func TestConfigCheckNamesBadTurnAndProviderLimitKeys(t *testing.T) {
	checkFails(t, `
provider:
  kind: fake
  max_concurrency: -1
  requests_per_minute: -5
turns:
  on_new_input: drop
channels:
  telegram:
    token: "123:abc"
    webhook_secret: abc
    turns:
      debounce: -1s
      bogus: 1
`,
		"provider.max_concurrency:", "provider.requests_per_minute:",
		"turns.on_new_input:", "channels.telegram.turns.bogus: unknown key")
}

func TestChannelTurnsOverrideTheTurnsSection(t *testing.T) {
	p := e2e.WriteFile(t, `
provider: {kind: fake}
turns: {on_new_input: interrupt, max_wait: 4s}
channels:
  telegram:
    token: "123:abc"
    webhook_secret: abc
    turns:
      debounce: 1.5s
`)
	cfg, err := gateway.LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
	got := cfg.Turns.Merge(cfg.Channels.Turns["telegram"])
	if got.Debounce != 1500*time.Millisecond || got.MaxWait != 4*time.Second || got.OnNewInput != "interrupt" {
		t.Errorf("telegram turns = %+v, want debounce 1.5s over the section's max_wait 4s and interrupt", got)
	}
	if cfg.Channels.Telegram == nil || cfg.Channels.Telegram.Token != "123:abc" {
		t.Errorf("the telegram section around turns was lost: %+v", cfg.Channels.Telegram)
	}
}
