package anthropic_test

import (
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/anthropic"
	"github.com/botgw/botgw/providers/providertest"
)

// TestConformance runs the provider suite against the Messages API's wire.
func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Harness{
		Wire: providertest.Messages(), Model: "claude-sonnet-4-5", ID: "anthropic/claude-sonnet-4-5",
		New:              func(c providertest.Config) (botgw.Provider, error) { return anthropic.New(c) },
		DefaultMaxTokens: anthropic.DefaultMaxTokens,
		// What the SDK's defaults would read, but for WithoutEnvironmentDefaults.
		Env: map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "ANTHROPIC_API_KEY": "sk-ant-from-env",
			"ANTHROPIC_AUTH_TOKEN": "token-from-env", "ANTHROPIC_PROFILE": "from-env"},
	})
}
