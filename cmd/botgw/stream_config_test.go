package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/botgw/botgw/internal/e2e"
)

func TestConfigCheckNamesBadStreamKeys(t *testing.T) {
	p := e2e.WriteFile(t, `
provider: {kind: fake}
channels: {web: {}}
events:
  kafka: {brokers: ["kafka-1"], topic: botgw.events}
stream:
  webhook: {url: "game.example.com/stream", secret: short}
  kafka: {brokers: []}
  max_pending: -1
  colour: blue
`)
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"config", "check", "-config", p}, &out, &errOut); err == nil {
		t.Fatal("config check passed a bad stream section")
	}
	for _, key := range []string{"stream.webhook.url:", "stream.webhook.secret:", "stream.kafka.brokers:",
		"stream.kafka.topic: required", "stream.max_pending:", "stream.colour: unknown key",
		"events.kafka.brokers[0]:", "events.kafka.group: required"} {
		if !strings.Contains(out.String(), key) {
			t.Errorf("output lacks %q:\n%s", key, out.String())
		}
	}
}
