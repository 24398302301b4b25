package channeltest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Refuse makes every chat.postMessage after the next n fail with f, until
// Refuse(OK, 0): a 503 page, a 429 with Retry-After 120, or channel_not_found.
func (f *SlackAPI) Refuse(how Failure, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refusal = map[Failure]string{Temporary: "temporary", RateLimited: "ratelimited", Permanent: "permanent"}[how]
	f.refuseIn = n
}

// RateLimit makes the next n chat.postMessage calls answer 429 with
// Retry-After retryAfter (seconds).
func (f *SlackAPI) RateLimit(n int, retryAfter string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.limits, f.retry = n, retryAfter
}

// UseSocket makes apps.connections.open hand out s's URL.
func (f *SlackAPI) UseSocket(s *SlackSocket) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.socket = s.URL
}

// Answer makes method answer raw JSON.
func (f *SlackAPI) Answer(method, raw string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.extra[method] = raw
}

// Sent returns the text of every message posted, in order.
func (f *SlackAPI) Sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.accepted...)
}

// WaitFor blocks until a call of method arrives (the sign of a background
// goroutine) or fails the test after a generous safety timeout.
func (f *SlackAPI) WaitFor(method string) APICall {
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

// SlackSocket is Slack's Socket Mode endpoint: it says hello, sends the
// queued envelopes and reports every acknowledgement it reads on Acks.
type SlackSocket struct {
	URL       string // see SlackAPI.UseSocket
	Envelopes []string
	Acks      chan string
}

// NewSlackSocket starts a Socket Mode endpoint that sends envelopes.
func NewSlackSocket(t testing.TB, envelopes ...string) *SlackSocket {
	s := &SlackSocket{Envelopes: envelopes, Acks: make(chan string, 100)}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = "ws" + strings.TrimPrefix(srv.URL, "http") + "/link/?ticket=1d2c3b4a"
	return s
}

func (s *SlackSocket) serve(w http.ResponseWriter, r *http.Request) {
	// slack-go dials with Origin https://api.slack.com, which Slack accepts.
	up := websocket.Upgrader{CheckOrigin: func(r *http.Request) bool { return r.Header.Get("Origin") == "https://api.slack.com" }}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer conn.Close()
	hello := `{"type":"hello","num_connections":1,"debug_info":{"host":"applink-7fc4fdbb8b-l8dqk",` +
		`"build_number":118,"approximate_connection_time":18060},"connection_info":{"app_id":"A0KRD7HC3"}}`
	for _, msg := range append([]string{hello}, s.Envelopes...) {
		if conn.WriteMessage(websocket.TextMessage, []byte(msg)) != nil {
			return
		}
	}
	for {
		var ack struct {
			EnvelopeID string `json:"envelope_id"`
		}
		if conn.ReadJSON(&ack) != nil {
			return
		}
		s.Acks <- ack.EnvelopeID
	}
}
