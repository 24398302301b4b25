package main

import (
	"testing"
)

func TestConfigCheckNamesBadStreamKeys(t *testing.T) {
	checkFails(t, `
provider: {kind: fake}
channels: {web: {}}
events:
  kafka: {brokers: ["kafka-1"], topic: botgw.events}
stream:
  webhook: {url: "game.example.com/stream", secret: short}
  kafka: {brokers: []}
  max_pending: -1
  colour: blue
`,
		"stream.webhook.url:", "stream.webhook.secret:", "stream.kafka.brokers:",
		"stream.kafka.topic: required", "stream.max_pending:", "stream.colour: unknown key",
		"events.kafka.brokers[0]:", "events.kafka.group: required")
}
