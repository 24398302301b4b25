// Package providertest holds fakes of the model APIs the providers call,
// speaking their real wire format (paths, bodies, error shapes, status
// codes): a Chat Completions server (OpenAI, and Ollama's compatible
// shapes), an Anthropic Messages server and an audio transcription server.
// Every package's tests use these instead of their own copies.
//
// Run is the providers' conformance suite, as channeltest.Run is the
// channels': each provider passes it against the fake of its vendor's API.
//
// It is test support: production code never imports it. It is not under
// providers/internal because cmd/botgw's tests use it too.
package providertest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Call is one request a fake received, with its body decoded into Req.
type Call[Req any] struct {
	At     time.Time
	Header http.Header
	Raw    []byte
	Body   Req
}

// Respond answers the n-th call (0-based) of a fake.
type Respond func(n int, w http.ResponseWriter, r *http.Request)

// Answer is a scripted HTTP answer.
type Answer struct {
	Status int
	Header map[string]string
	Body   string
}

// Write sends a as a JSON answer.
func (a Answer) Write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	for k, v := range a.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.Status)
	_, _ = io.WriteString(w, a.Body)
}

// Script answers call n with script(n).
func Script(script func(n int) Answer) Respond {
	return func(n int, w http.ResponseWriter, _ *http.Request) { script(n).Write(w) }
}

// Always answers every call with a.
func Always(a Answer) Respond { return Script(func(int) Answer { return a }) }

// Delayed answers like respond after d, as a slow model does; a request
// the client cancels meanwhile gets no answer.
func Delayed(d time.Duration, respond Respond) Respond {
	return func(n int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(d):
			respond(n, w, r)
		case <-r.Context().Done():
		}
	}
}

// Server is a fake model API serving POST on one path; other requests get
// notFound. It records every call.
type Server[Req any] struct {
	*httptest.Server
	mu    sync.Mutex
	calls []Call[Req]
}

// decodeJSON reads a JSON request body.
func decodeJSON[Req any](_ *http.Request, raw []byte) (Req, error) {
	var req Req
	err := json.Unmarshal(raw, &req)
	return req, err
}

func newServer[Req any](t testing.TB, path string, notFound Answer, respond Respond,
	decode func(*http.Request, []byte) (Req, error)) *Server[Req] {
	t.Helper()
	s := &Server[Req]{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != path {
			notFound.Write(w)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw)) // respond may read it again
		c := Call[Req]{At: time.Now(), Header: r.Header.Clone(), Raw: raw}
		var err error
		if c.Body, err = decode(r, raw); err != nil {
			t.Errorf("fake model API: request body %.200q: %v", raw, err)
		}
		s.mu.Lock()
		n := len(s.calls)
		s.calls = append(s.calls, c)
		s.mu.Unlock()
		respond(n, w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// Calls returns every call so far, in order.
func (s *Server[Req]) Calls() []Call[Req] {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call[Req](nil), s.calls...)
}
