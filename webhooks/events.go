package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/webhooks/guard"
)

const (
	maxEventBatch = 100
	sigWindow     = 5 * time.Minute
)

// Nonces remember used signatures (replay protection), in Redis so the
// protection holds across replicas and restarts.
type Nonces interface {
	// Once records name for ttl and reports whether it was new.
	Once(ctx context.Context, name string, ttl time.Duration) (bool, error)
	// Forget removes name, so a request that stored nothing can be retried.
	Forget(ctx context.Context, name string) error
}

// Events serves POST /v1/events: app events into a chat's context.
type Events struct {
	secret   []byte
	deliver  botgw.Deliver
	nonces   Nonces
	channels []string // configured channel names; others are 404
	log      *slog.Logger
	now      func() time.Time
}

// NewEvents builds the events endpoint. channels are the configured channel
// names; an event for any other channel is refused with 404.
func NewEvents(secret string, deliver botgw.Deliver, nonces Nonces, channels []string, log *slog.Logger) *Events {
	return &Events{secret: []byte(secret), deliver: deliver, nonces: nonces, channels: channels, log: log, now: time.Now}
}

// eventIn is one event as posted.
type eventIn struct {
	Chat    string `json:"chat"`
	Text    string `json:"text"`
	ID      string `json:"id"`
	Key     string `json:"key"`
	Respond bool   `json:"respond"`
	offerIn
}

func (ev *Events) mount(e *echo.Echo) { e.POST("/v1/events", ev.post) }

func (ev *Events) post(c echo.Context) error {
	r := c.Request()
	cred, err := ev.credentials(r.Header)
	if err != nil {
		ev.log.Warn("event refused", "err", err)
		return c.JSON(http.StatusUnauthorized, map[string]string{"error": err.Error()})
	}
	body, err := guard.ReadBody(c.Response(), r, maxEventBody)
	if err != nil {
		status, msg := guard.Status(c.Response(), err)
		return c.JSON(status, map[string]string{"error": msg})
	}
	nonce, err := ev.verify(cred, body)
	if err != nil {
		ev.log.Warn("event refused", "err", err)
		return c.JSON(http.StatusUnauthorized, map[string]string{"error": err.Error()})
	}
	in, status, err := ev.parse(body)
	if err != nil {
		return c.JSON(status, map[string]string{"error": err.Error()})
	}
	if status, err := ev.claim(r.Context(), nonce); err != nil { // a signed request: only once, once the body is valid
		return c.JSON(status, map[string]string{"error": err.Error()})
	}
	for _, m := range in {
		if err := ev.deliver(r.Context(), m); err != nil {
			ev.log.Warn("event not stored", "chat", m.Chat, "err", err)
			if nonce != "" { // the client is told to retry: let the same signed request in again
				_ = ev.nonces.Forget(context.WithoutCancel(r.Context()), nonce)
			}
			return c.JSON(http.StatusServiceUnavailable, map[string]string{"error": "could not store the event; retry (ids make retries safe)"})
		}
	}
	return c.JSON(http.StatusAccepted, map[string]any{"accepted": true, "count": len(in)})
}

// signed is a request's signature headers, checked as far as they can be
// without the body; the zero value is a Bearer request already verified.
type signed struct{ ts, sig string }

// credentials checks what a request presents before its body is read: a
// Bearer secret completely, a signature's timestamp window and form.
func (ev *Events) credentials(h http.Header) (signed, error) {
	if len(ev.secret) == 0 {
		return signed{}, errors.New("events.secret is not configured: the events endpoint is off")
	}
	if _, ok := guard.Bearer(h); ok {
		if guard.BearerIs(h, ev.secret) {
			return signed{}, nil
		}
		return signed{}, errors.New("authorization: wrong bearer token")
	}
	ts, sig := h.Get("X-Botgw-Timestamp"), h.Get("X-Botgw-Signature")
	if ts == "" || sig == "" {
		return signed{}, errors.New("authorization: missing (Bearer token, or X-Botgw-Timestamp and X-Botgw-Signature)")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || ev.now().Sub(time.Unix(sec, 0)).Abs() > sigWindow {
		return signed{}, errors.New("x-botgw-timestamp: missing, malformed or outside the 5-minute window")
	}
	if len(sig) != len("v1=")+2*sha256.Size || !strings.HasPrefix(sig, "v1=") {
		return signed{}, errors.New("x-botgw-signature: want v1=<64 hex digits>")
	}
	return signed{ts: ts, sig: sig}, nil
}

// verify checks a signature against the body. It returns the nonce the
// caller must claim once, after the body proved valid ("" for Bearer).
func (ev *Events) verify(s signed, body []byte) (nonce string, err error) {
	if s.sig == "" {
		return "", nil
	}
	if !hmac.Equal([]byte(s.sig), []byte(Sign(ev.secret, s.ts, body))) {
		return "", errors.New("x-botgw-signature: does not match")
	}
	return "evsig:" + s.sig, nil
}

// authenticate is credentials and verify for a request whose signed
// content is already at hand (a path in place of a body).
func (ev *Events) authenticate(h http.Header, content []byte) (nonce string, err error) {
	s, err := ev.credentials(h)
	if err != nil {
		return "", err
	}
	return ev.verify(s, content)
}

// BodilessContent is what a signature covers for a request without a body
// (GET and DELETE /v1/broadcasts/{id}) in place of one: "<METHOD> <path>",
// so the signed string is "<timestamp>.DELETE /v1/broadcasts/final-round"
// and a GET's signature never authorises a DELETE (docs/http-api.md).
func BodilessContent(method, path string) []byte {
	return []byte(method + " " + path)
}

// Sign computes the X-Botgw-Signature value for a timestamp and body.
func Sign(secret []byte, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(timestamp))
	m.Write([]byte("."))
	m.Write(body)
	return "v1=" + hex.EncodeToString(m.Sum(nil))
}

// parse reads one event or a batch; every error names its field.
func (ev *Events) parse(body []byte) ([]botgw.Inbound, int, error) {
	var probe struct {
		Events json.RawMessage `json:"events"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("body: invalid JSON: %v", err)
	}
	var list []eventIn
	prefix := func(int) string { return "" }
	if probe.Events != nil {
		var batch struct {
			Events json.RawMessage `json:"events"`
		}
		if err := strictDecode(body, &batch); err != nil { // nothing next to "events"
			return nil, http.StatusBadRequest, fmt.Errorf("body: %v (a batch holds only \"events\")", err)
		}
		if err := strictDecode(probe.Events, &list); err != nil {
			return nil, http.StatusBadRequest, fmt.Errorf("events: %v", err)
		}
		if len(list) == 0 || len(list) > maxEventBatch {
			return nil, http.StatusBadRequest, fmt.Errorf("events: want 1 to %d events, got %d", maxEventBatch, len(list))
		}
		prefix = func(i int) string { return fmt.Sprintf("events[%d].", i) }
	} else {
		var one eventIn
		if err := strictDecode(body, &one); err != nil {
			return nil, http.StatusBadRequest, fmt.Errorf("body: %v", err)
		}
		list = []eventIn{one}
	}
	out := make([]botgw.Inbound, 0, len(list))
	for i, e := range list {
		m, status, err := ev.check(e)
		if err != nil {
			return nil, status, errors.New(prefix(i) + err.Error())
		}
		out = append(out, m)
	}
	return out, 0, nil
}

func strictDecode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// check validates one event and turns it into pending input of its chat.
func (ev *Events) check(e eventIn) (botgw.Inbound, int, error) {
	if e.Chat == "" {
		return botgw.Inbound{}, http.StatusBadRequest, errors.New("chat: required")
	}
	k, err := botgw.ParseChatKey(e.Chat)
	if err != nil {
		return botgw.Inbound{}, http.StatusBadRequest, fmt.Errorf("chat: %v", err)
	}
	if !slices.Contains(ev.channels, k.Channel) {
		return botgw.Inbound{}, http.StatusNotFound, fmt.Errorf("chat: unknown channel %q (configured: %s)", k.Channel, strings.Join(ev.channels, ", "))
	}
	switch {
	case strings.TrimSpace(e.Text) == "":
		return botgw.Inbound{}, http.StatusBadRequest, errors.New("text: required")
	case len(e.ID) > 200:
		return botgw.Inbound{}, http.StatusBadRequest, errors.New("id: longer than 200 characters")
	case len(e.Key) > 64:
		return botgw.Inbound{}, http.StatusBadRequest, errors.New("key: longer than 64 characters")
	}
	offer, err := e.offerFor(e.Respond)
	if err != nil {
		return botgw.Inbound{}, http.StatusBadRequest, err
	}
	id := e.ID
	if id == "" {
		id = randomID()
	}
	return botgw.Inbound{Chat: k, Kind: botgw.KindEvent, ID: "evt:" + id, At: ev.now(),
		Event: &botgw.Event{ID: e.ID, Key: e.Key, Text: e.Text, Respond: e.Respond, Offer: offer}}, 0, nil
}

func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ParseEvent validates one app event's JSON as POST /v1/events takes it,
// for the gateway's other event sources (Kafka); the error names the
// field. An event without an id is given fallbackID, so a source that
// hands the same message over twice stores it once.
func (ev *Events) ParseEvent(body []byte, fallbackID string) (botgw.Inbound, error) {
	var one eventIn
	if err := strictDecode(body, &one); err != nil {
		return botgw.Inbound{}, fmt.Errorf("body: %v", err)
	}
	if one.ID == "" {
		one.ID = fallbackID
	}
	m, _, err := ev.check(one)
	return m, err
}
