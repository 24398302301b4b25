package providertest

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

var configCases = []suiteCase{
	{"config/environment-ignored", environmentIgnored},
	{"config/rejected", configRejected},
}

var transcribeCases = []suiteCase{
	{"transcribe/text", transcribeText},
	{"transcribe/errors", transcribeErrors},
}

// The vendor SDK's environment variables are never read: the call goes
// where the configuration says, with its key or (a keyless server) none,
// and no value of the environment reaches the server.
func environmentIgnored(t *testing.T, h Harness) {
	for k, v := range h.Env {
		t.Setenv(k, v)
	}
	for _, key := range []string{Key, ""} {
		e := start(t, h, Always(h.Wire.Text("hi", Usage{Input: 5, Output: 1})))
		e.cfg.APIKey = key
		if _, err := e.complete(t, hi()); err != nil {
			t.Fatalf("key %q: %v", key, err)
		}
		s := e.only(t)
		if s.Key != key {
			t.Errorf("request carried key %q, want the configured %q", s.Key, key)
		}
		for name, values := range s.Header {
			for _, v := range h.Env {
				if strings.Contains(strings.Join(values, ","), v) {
					t.Errorf("header %s: %q comes from the environment", name, values)
				}
			}
		}
	}
}

// A configuration without a model or with a relative base URL is refused
// by New, naming what is wrong; the vendor's own host needs no base URL.
func configRejected(t *testing.T, h Harness) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{APIKey: Key}, "model"},
		{Config{APIKey: Key, Model: h.Model, BaseURL: "localhost:11434/v1"}, "base url"},
	} {
		if _, err := h.New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want an error naming the %s", c.cfg, err, c.want)
		}
	}
	if _, err := h.New(Config{APIKey: Key, Model: h.Model}); err != nil {
		t.Errorf("New without a base URL: %v, want the vendor's host", err)
	}
}

// transcriber is the harness's transcriber on a fresh fake API, with the
// configuration edit makes.
func transcriber(t *testing.T, h Harness, respond Respond, edit func(*Config)) (Transcriber, *Transcription) {
	t.Helper()
	if h.Transcribe == nil {
		t.Skip("the provider has no transcriber")
	}
	api := NewTranscription(t, respond)
	cfg := Config{BaseURL: api.URL + "/v1", APIKey: Key, Model: "whisper-1"}
	if edit != nil {
		edit(&cfg)
	}
	tr, err := h.Transcribe(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr, api
}

// A recording goes as the multipart file, named so the server knows its
// format, with the model; the transcript comes back.
func transcribeText(t *testing.T, h Harness) {
	tr, api := transcriber(t, h, Always(Transcript("I am at the old bridge")), nil)
	audio := []byte("OggS\x00\x02voice-bytes")
	text, err := tr.Transcribe(t.Context(), audio, "voice.ogg")
	if err != nil || text != "I am at the old bridge" {
		t.Fatalf("transcript %q, %v", text, err)
	}
	calls := api.Calls()
	if len(calls) != 1 {
		t.Fatalf("the API received %d requests, want 1", len(calls))
	}
	c := calls[0]
	if r := c.Body; r.Model != "whisper-1" || r.FileName != "voice.ogg" || r.ContentType != "audio/ogg" || string(r.Audio) != string(audio) {
		t.Errorf("sent model %q file %q (%s, %d bytes), want whisper-1, voice.ogg (audio/ogg, %d bytes)",
			r.Model, r.FileName, r.ContentType, len(r.Audio), len(audio))
	}
	if bearer(c.Header) != Key {
		t.Errorf("request carried key %q, want %q", bearer(c.Header), Key)
	}
}

// A failing transcription server is retried as configured, then a
// retryable error; a bad request is permanent and sent once.
func transcribeErrors(t *testing.T, h Harness) {
	for status, want := range map[int]struct {
		calls     int
		retryable bool
	}{http.StatusInternalServerError: {2, true}, http.StatusBadRequest: {1, false}} {
		failed, _, _ := ChatCompletions().Error(status)
		tr, api := transcriber(t, h, Always(withHeader(failed, "Retry-After-Ms", "10")), func(c *Config) { c.MaxRetries = 1 })
		_, err := tr.Transcribe(t.Context(), []byte("OggS"), "voice.ogg")
		pe, ok := errors.AsType[*botgw.ProviderError](err)
		if !ok {
			t.Fatalf("%d: err = %v (%T), want a *botgw.ProviderError", status, err, err)
		}
		if pe.Status != status || pe.Retryable() != want.retryable || len(api.Calls()) != want.calls {
			t.Errorf("%d: error status %d retryable %v after %d requests, want %d %v after %d",
				status, pe.Status, pe.Retryable(), len(api.Calls()), status, want.retryable, want.calls)
		}
	}
}
