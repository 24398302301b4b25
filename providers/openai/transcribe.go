package openai

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"path"

	sdk "github.com/openai/openai-go/v3"
)

// DefaultTranscriptionModel is the model voice notes are transcribed with
// when none is configured.
const DefaultTranscriptionModel = "gpt-4o-mini-transcribe"

// Transcriber turns recordings into text with POST {base_url}/audio/transcriptions
// (multipart "file" and "model"; JSON answer {"text"}), on OpenAI or any
// compatible server (whisper.cpp, faster-whisper, vLLM, Groq). It is safe
// for concurrent use.
type Transcriber struct {
	p   *Provider // the client settings and error translation
	svc sdk.AudioTranscriptionService
}

// NewTranscriber checks cfg (Model defaults to DefaultTranscriptionModel)
// and builds the client; it does no network I/O.
func NewTranscriber(cfg Config) (*Transcriber, error) {
	if cfg.Model == "" {
		cfg.Model = DefaultTranscriptionModel
	}
	p, err := New(cfg)
	if err != nil {
		return nil, fmt.Errorf("transcription: %w", err)
	}
	p.id = "openai-transcription/" + cfg.Model
	return &Transcriber{p: p, svc: sdk.NewAudioTranscriptionService(p.client.Options...)}, nil
}

// Transcribe sends audio as the multipart file name (its extension tells
// the server the format) and returns the transcript. The SDK retries
// connection errors, 408, 409, 429 and 5xx with backoff; what still fails
// is a *botgw.ProviderError.
func (t *Transcriber) Transcribe(ctx context.Context, audio []byte, name string) (string, error) {
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	res, err := t.svc.New(ctx, sdk.AudioTranscriptionNewParams{
		File:  sdk.File(bytes.NewReader(audio), name, ctype),
		Model: sdk.AudioModel(t.p.cfg.Model),
	})
	if err != nil {
		return "", t.p.cfg.ProviderError(ctx, t.p.id, err, failure(err))
	}
	return res.Text, nil
}
