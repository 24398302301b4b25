package gateway

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/media"
	"github.com/botgw/botgw/providers/openai"
)

// MediaConfig is what players send besides text (docs/media.md).
type MediaConfig struct {
	Images         *bool               `yaml:"images"`          // photos to the model; default true
	MaxImageBytes  int64               `yaml:"max_image_bytes"` // default 5 MiB
	MaxConcurrency int                 `yaml:"max_concurrency"` // downloads and transcriptions at once on a replica; default 32
	Transcription  TranscriptionConfig `yaml:"transcription"`
}

// TranscriptionConfig: voice notes and audio files become text before the
// turn, on any server with POST {base_url}/audio/transcriptions.
type TranscriptionConfig struct {
	Kind       string `yaml:"kind"` // openai | off; empty: openai when the provider is openai, else off
	BaseURL    string `yaml:"base_url"`
	APIKey     string `yaml:"api_key"`
	Model      string `yaml:"model"`
	MaxSeconds int    `yaml:"max_seconds"` // default 300
}

// anthropicImageBytes is the largest photo sent to Claude: the API refuses
// images over 5 MB of base64, which is 3.75 MB of bytes.
const anthropicImageBytes = 3_750_000

// maxImageLimit bounds media.max_image_bytes: no platform delivers more
// (Telegram's bots download up to 20 MB) and the models take less.
const maxImageLimit = 20 << 20

// maxConcurrencyLimit bounds media.max_concurrency: each slot may hold a
// file of up to max_image_bytes (or a 25 MiB recording) in memory.
const maxConcurrencyLimit = 1024

// transcription is the transcription config with the defaults of the
// provider filled in.
func (c MediaConfig) transcription(pc ProviderConfig) TranscriptionConfig {
	t, p := c.Transcription, pc.resolved()
	if t.Kind == "" {
		t.Kind = "off"
		if p.Kind == "openai" {
			t.Kind = "openai"
		}
	}
	if t.Kind == "openai" && p.Kind == "openai" && t.BaseURL == "" {
		t.BaseURL, t.APIKey = p.BaseURL, cmp.Or(t.APIKey, p.APIKey)
	}
	t.Model = cmp.Or(t.Model, openai.DefaultTranscriptionModel)
	return t
}

// validate names every bad media key.
func (c MediaConfig) validate(pc ProviderConfig) error {
	var errs []error
	if c.MaxImageBytes < 0 || c.MaxImageBytes > maxImageLimit {
		errs = append(errs, fmt.Errorf("media.max_image_bytes: %d: want 0 (the default, 5 MiB) up to %d", c.MaxImageBytes, maxImageLimit))
	}
	if c.MaxConcurrency < 0 || c.MaxConcurrency > maxConcurrencyLimit {
		errs = append(errs, fmt.Errorf("media.max_concurrency: %d: want 0 (the default, 32) up to %d", c.MaxConcurrency, maxConcurrencyLimit))
	}
	t := c.transcription(pc)
	switch t.Kind {
	case "off":
	case "openai":
		if u, err := url.Parse(t.BaseURL); t.BaseURL != "" && (err != nil || u.Scheme == "" || u.Host == "") {
			errs = append(errs, fmt.Errorf("media.transcription.base_url: %q: want an absolute http(s) URL", t.BaseURL))
		}
		if t.BaseURL == "" && t.APIKey == "" {
			errs = append(errs, errors.New("media.transcription.api_key: required for OpenAI's API (or set base_url, or kind: off)"))
		}
	default:
		errs = append(errs, fmt.Errorf("media.transcription.kind: %q: want openai or off", t.Kind))
	}
	if t.MaxSeconds < 0 {
		errs = append(errs, fmt.Errorf("media.transcription.max_seconds: %d: want 0 (the default, 300) or more", t.MaxSeconds))
	}
	return errors.Join(errs...)
}

// buildMedia is the reader of photos and voice notes for turns: the
// channels that can fetch media, the transcriber, the provider's limit.
func buildMedia(cfg Config, chans map[string]botgw.Channel, observe func(botgw.MediaKind, string, time.Duration), log *slog.Logger) (*media.Reader, error) {
	deps := media.Deps{Fetchers: map[string]botgw.MediaFetcher{}, Observe: observe, Log: log}
	for name, ch := range chans {
		if f, ok := ch.(botgw.MediaFetcher); ok {
			deps.Fetchers[name] = f
		}
	}
	t := cfg.Media.transcription(cfg.Provider)
	if t.Kind == "openai" {
		tr, err := openai.NewTranscriber(openai.Config{BaseURL: t.BaseURL, APIKey: t.APIKey, Model: t.Model,
			Timeout: cmp.Or(cfg.Provider.Timeout, openai.DefaultTimeout)})
		if err != nil {
			return nil, fmt.Errorf("media.transcription: %w", err)
		}
		deps.Transcriber = tr
	}
	mc := media.Config{Images: cfg.Media.Images == nil || *cfg.Media.Images, MaxImageBytes: cfg.Media.MaxImageBytes,
		MaxSeconds: t.MaxSeconds, Concurrency: cfg.Media.MaxConcurrency, LogContent: cfg.Log.Content}
	for p := &cfg.Provider; p != nil; p = p.Fallback {
		if p.resolved().Kind == "anthropic" {
			mc.ProviderImageBytes = anthropicImageBytes
		}
	}
	return media.New(mc, deps), nil
}
