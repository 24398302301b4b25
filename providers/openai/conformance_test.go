package openai_test

import (
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/openai"
	"github.com/botgw/botgw/providers/providertest"
)

// TestConformance runs the provider suite against api.openai.com's wire
// and against an OpenAI-compatible server's (Ollama).
func TestConformance(t *testing.T) {
	env := map[string]string{ // what openai-go's NewClient would read
		"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_API_KEY": "sk-from-env",
		"OPENAI_ADMIN_KEY": "sk-admin-from-env", "OPENAI_ORG_ID": "org-from-env",
		"OPENAI_PROJECT_ID": "proj-from-env", "OPENAI_CUSTOM_HEADERS": "X-From-Env: leaked",
	}
	for name, h := range map[string]providertest.Harness{
		"openai":     {Wire: providertest.ChatCompletions(), Model: "gpt-4o-mini", ID: "openai/gpt-4o-mini"},
		"compatible": {Wire: providertest.Compatible(), Model: "llama3.2", ID: "openai/llama3.2"},
	} {
		h.New = func(c providertest.Config) (botgw.Provider, error) { return openai.New(c) }
		h.Transcribe = func(c providertest.Config) (providertest.Transcriber, error) { return openai.NewTranscriber(c) }
		h.Env = env
		t.Run(name, func(t *testing.T) { providertest.Run(t, h) })
	}
}
