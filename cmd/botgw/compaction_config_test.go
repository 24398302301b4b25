package main

import (
	"testing"
)

func TestComposedCompactionErrorsNameTheKeyPath(t *testing.T) {
	checkFails(t, `
provider: {kind: fake}
compaction:
  chain:
    - strategy: last_n
      max_tokens: 100
    - strategy: sumarize
      when: {tokens_over: -1}
    - when: {messages_over: 40}
      colour: blue
`,
		"compaction.chain[2].colour: unknown key")
	// with the unknown key gone, the rest is checked
	checkFails(t, `
provider: {kind: fake}
compaction:
  strategy: last_n
  chain:
    - strategy: last_n
      max_tokens: 100
    - strategy: sumarize
      when: {tokens_over: -1}
    - when: {messages_over: 40}
`,
		"compaction.chain: set either chain or strategy",
		`compaction.chain[0].max_tokens: not used by strategy "last_n"`,
		`compaction.chain[1].strategy: unknown "sumarize"`,
		"compaction.chain[1].when.tokens_over: must not be negative, got -1",
		"compaction.chain[2].strategy: required")
}
