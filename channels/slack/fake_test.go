package slack

import (
	"encoding/json"
	"fmt"
	"github.com/botgw/botgw/channels/pace"
	"github.com/botgw/botgw/channels/pace/pacetest"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testBotToken = "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy"
	testAppToken = "xapp-1-A0KRD7HC3-2009290291-0f5e6c9e9a0e4b1c"
	testSecret   = "8f742231b10e8888abcd99yyyzzz85a5"
	botUserID    = "U0BOTUSER1"
	botID        = "B0BOTID01"
)

// call is one Web API request the fake received.
type call struct {
	Method string
	Form   url.Values
}

// fakeSlack is a local Slack Web API: real paths (/api/<method>), form
// bodies, token checks, JSON answers and rate-limit responses.
type fakeSlack struct {
	t   testing.TB
	srv *httptest.Server

	mu        sync.Mutex
	calls     []call
	limits    int               // chat.postMessage answers 429 this many times
	retry     string            // Retry-After of those answers
	failPosts map[int]int       // nth chat.postMessage (1-based) → HTTP status
	errPosts  map[int]string    // nth chat.postMessage → Web API error code
	wsURL     string            // apps.connections.open answer
	seen      chan call         // every call, for tests waiting on async ones
	extra     map[string]string // method → raw JSON answer
}

func newFakeSlack(t testing.TB) *fakeSlack {
	f := &fakeSlack{t: t, retry: "1", failPosts: map[int]int{}, errPosts: map[int]string{},
		seen: make(chan call, 1000), extra: map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// APIURL is the base URL to configure, ending in /api/ like Slack's.
func (f *fakeSlack) APIURL() string { return f.srv.URL + "/api/" }

func (f *fakeSlack) serve(w http.ResponseWriter, r *http.Request) {
	method, ok := strings.CutPrefix(r.URL.Path, "/api/")
	if !ok || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(body))
	c := call{Method: method, Form: form}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	select {
	case f.seen <- c:
	default:
	}
	if !f.authorised(method, r, form) {
		writeJSON(w, http.StatusOK, `{"ok":false,"error":"invalid_auth"}`)
		return
	}
	f.answer(w, c)
}

func (f *fakeSlack) authorised(method string, r *http.Request, form url.Values) bool {
	if method == "apps.connections.open" {
		return r.Header.Get("Authorization") == "Bearer "+testAppToken
	}
	return form.Get("token") == testBotToken || r.Header.Get("Authorization") == "Bearer "+testBotToken
}

func (f *fakeSlack) answer(w http.ResponseWriter, c call) {
	switch c.Method {
	case "auth.test":
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"ok":true,"url":"https://botgw-test.slack.com/","team":"botgw test",`+
			`"user":"botgw","team_id":"T061EG9R6","user_id":%q,"bot_id":%q,"is_enterprise_install":false}`, botUserID, botID))
	case "chat.postMessage":
		f.postMessage(w, c.Form)
	case "reactions.add", "reactions.remove":
		writeJSON(w, http.StatusOK, `{"ok":true}`)
	case "apps.connections.open":
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"ok":true,"url":%q}`, f.wsURL))
	default:
		if raw, ok := f.extra[c.Method]; ok {
			writeJSON(w, http.StatusOK, raw)
			return
		}
		writeJSON(w, http.StatusOK, `{"ok":false,"error":"unknown_method"}`)
	}
}

func (f *fakeSlack) postMessage(w http.ResponseWriter, form url.Values) {
	f.mu.Lock()
	n := len(f.posts())
	limited := f.limits > 0
	if limited {
		f.limits--
	}
	status, code := f.failPosts[n], f.errPosts[n]
	f.mu.Unlock()
	switch {
	case limited:
		w.Header().Set("Retry-After", f.retry)
		writeJSON(w, http.StatusTooManyRequests, `{"ok":false,"error":"ratelimited"}`)
	case status != 0:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "<html><body>Service Unavailable</body></html>")
	case code != "":
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"ok":false,"error":%q}`, code))
	case form.Get("text") == "":
		writeJSON(w, http.StatusOK, `{"ok":false,"error":"no_text"}`)
	default:
		ts := fmt.Sprintf("%d.%06d", time.Now().Unix(), n)
		msg, _ := json.Marshal(map[string]any{"type": "message", "text": form.Get("text"), "user": botUserID,
			"bot_id": botID, "ts": ts, "thread_ts": form.Get("thread_ts")})
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"ok":true,"channel":%q,"ts":%q,"message":%s}`, form.Get("channel"), ts, msg))
	}
}

// posts are the chat.postMessage calls so far; f.mu must be held.
func (f *fakeSlack) posts() []call {
	var out []call
	for _, c := range f.calls {
		if c.Method == "chat.postMessage" {
			out = append(out, c)
		}
	}
	return out
}

// Posts returns the chat.postMessage calls so far.
func (f *fakeSlack) Posts() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.posts()
}

// waitFor blocks until a call of method arrives (the signal of a background
// goroutine) or fails the test after a generous safety timeout.
func (f *fakeSlack) waitFor(method string) call {
	f.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case c := <-f.seen:
			if c.Method == method {
				return c
			}
		case <-timeout:
			f.t.Fatalf("no %s call arrived", method)
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// newTestAdapter builds an events-mode channel against f and runs Start.
func newTestAdapter(t testing.TB, f *fakeSlack) *eventsChannel {
	t.Helper()
	ch, err := New(Config{BotToken: testBotToken, SigningSecret: testSecret, APIURL: f.APIURL()}, testPacer(t), discard())
	if err != nil {
		t.Fatal(err)
	}
	ec := ch.(*eventsChannel)
	if err := ec.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return ec
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// testPacer paces sends on an embedded Redis with a fake clock.
func testPacer(t testing.TB) *pace.Pacer {
	p, _ := pacetest.New(t)
	return p
}
