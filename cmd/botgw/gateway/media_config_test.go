package gateway

import (
	"strings"
	"testing"
)

// config check names each bad media key by its path; transcription
// defaults follow the provider.
func TestMediaConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Provider = ProviderConfig{Kind: "anthropic", APIKey: "k", Model: "claude-x"}
	cfg.Media = MediaConfig{MaxImageBytes: -1, MaxConcurrency: -1, Transcription: TranscriptionConfig{Kind: "whisper", MaxSeconds: -5}}
	err := cfg.Validate()
	for _, key := range []string{"media.max_image_bytes", "media.max_concurrency", "media.transcription.kind", "media.transcription.max_seconds"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("config check does not name %s: %v", key, err)
		}
	}
	cfg.Media = MediaConfig{MaxConcurrency: 5000}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "media.max_concurrency: 5000: want 0 (the default, 32) up to 1024") {
		t.Errorf("config check on 5000 media slots: %v", err)
	}
	cfg.Media = MediaConfig{Transcription: TranscriptionConfig{Kind: "openai"}}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "media.transcription.api_key") {
		t.Errorf("transcription on OpenAI's API without a key: %v", err)
	}
	if got := (MediaConfig{}).transcription(cfg.Provider); got.Kind != "off" {
		t.Errorf("with Claude, transcription defaults to %q, want off", got.Kind)
	}
	oa := ProviderConfig{Kind: "openai", BaseURL: "http://127.0.0.1:11434/v1", APIKey: "sk", Model: "m"}
	if got := (MediaConfig{}).transcription(oa); got.Kind != "openai" || got.BaseURL != oa.BaseURL || got.APIKey != "sk" || got.Model != "gpt-4o-mini-transcribe" {
		t.Errorf("with OpenAI, transcription defaults to %+v, want the provider's server and key, gpt-4o-mini-transcribe", got)
	}
}
