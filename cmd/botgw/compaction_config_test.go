package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/botgw/botgw/internal/e2e"
)

func TestComposedCompactionErrorsNameTheKeyPath(t *testing.T) {
	p := e2e.WriteFile(t, `
provider: {kind: fake}
compaction:
  chain:
    - strategy: last_n
      max_tokens: 100
    - strategy: sumarize
      when: {tokens_over: -1}
    - when: {messages_over: 40}
      colour: blue
`)
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"config", "check", "-config", p}, &out, &errOut); err == nil {
		t.Fatal("config check passed a bad chain")
	}
	for _, want := range []string{
		"compaction.chain[2].colour: unknown key",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	// with the unknown key gone, the rest is checked
	p = e2e.WriteFile(t, `
provider: {kind: fake}
compaction:
  strategy: last_n
  chain:
    - strategy: last_n
      max_tokens: 100
    - strategy: sumarize
      when: {tokens_over: -1}
    - when: {messages_over: 40}
`)
	out.Reset()
	if err := run(t.Context(), []string{"config", "check", "-config", p}, &out, &errOut); err == nil {
		t.Fatal("config check passed a bad chain")
	}
	for _, want := range []string{
		"compaction.chain: set either chain or strategy",
		`compaction.chain[0].max_tokens: not used by strategy "last_n"`,
		`compaction.chain[1].strategy: unknown "sumarize"`,
		"compaction.chain[1].when.tokens_over: must not be negative, got -1",
		"compaction.chain[2].strategy: required",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
