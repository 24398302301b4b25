package providertest

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"testing"
)

// TranscriptionRequest is a POST /v1/audio/transcriptions form, as the
// fake reads it: the "model" field and the "file" part.
type TranscriptionRequest struct {
	Model, FileName, ContentType string
	Audio                        []byte
}

// Transcription is a fake audio transcription API at <URL>/v1, as OpenAI
// and compatible servers (whisper.cpp, faster-whisper, vLLM) speak it.
type Transcription = Server[TranscriptionRequest]

// NewTranscription starts a transcription API answering with respond.
func NewTranscription(t testing.TB, respond Respond) *Transcription {
	return newServer(t, "/v1/audio/transcriptions",
		OpenAIError(http.StatusNotFound, "Invalid URL", "invalid_request_error", ""), respond, readForm)
}

// Transcript is the API's JSON answer with the recording's text.
func Transcript(text string) Answer {
	return Answer{Status: http.StatusOK, Body: fmt.Sprintf(`{"text":%s,"usage":{"type":"tokens","input_tokens":14,`+
		`"input_token_details":{"text_tokens":0,"audio_tokens":14},"output_tokens":9,"total_tokens":23}}`, js(text))}
}

// readForm reads the multipart form of a transcription request.
func readForm(r *http.Request, raw []byte) (TranscriptionRequest, error) {
	var req TranscriptionRequest
	ct, ps, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" {
		return req, fmt.Errorf("content type %q: want multipart/form-data", r.Header.Get("Content-Type"))
	}
	form, err := multipart.NewReader(bytes.NewReader(raw), ps["boundary"]).ReadForm(32 << 20)
	if err != nil {
		return req, fmt.Errorf("read form: %w", err)
	}
	if m := form.Value["model"]; len(m) == 1 {
		req.Model = m[0]
	}
	files := form.File["file"]
	if len(files) != 1 {
		return req, fmt.Errorf("%d file parts, want 1", len(files))
	}
	req.FileName, req.ContentType = files[0].Filename, files[0].Header.Get("Content-Type")
	f, err := files[0].Open()
	if err != nil {
		return req, fmt.Errorf("open file part: %w", err)
	}
	defer f.Close()
	req.Audio, err = io.ReadAll(f)
	return req, err
}
