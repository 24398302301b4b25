package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/webhooks/guard"
)

const (
	maxBroadcastChats = 100_000
	maxBroadcastText  = 8000 // characters of a message or event text
)

var broadcastID = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// Broadcasts stores and follows broadcasts (convo/broadcast).
type Broadcasts interface {
	// Create stores a broadcast durably and starts it; an id that exists
	// changes nothing and returns the stored total.
	Create(ctx context.Context, id string, chats []string, message string, ev botgw.Event) (total int, err error)
	// Progress returns a broadcast's progress as JSON-able data, or
	// botgw.ErrNotFound.
	Progress(ctx context.Context, id string) (any, error)
	// Cancel stops what is not yet sent; botgw.ErrNotFound if there is no
	// such broadcast.
	Cancel(ctx context.Context, id string) (any, error)
}

// broadcastIn is POST /v1/broadcasts.
type broadcastIn struct {
	ID      string   `json:"id"`
	Chats   []string `json:"chats"`
	Message string   `json:"message"`
	Event   *struct {
		Text string `json:"text"`
		Key  string `json:"key"`
	} `json:"event"`
	Respond bool `json:"respond"`
	offerIn      // with a message, or an event with respond
}

func (ev *Events) mountBroadcasts(e *echo.Echo, b Broadcasts) {
	e.POST("/v1/broadcasts", func(c echo.Context) error { return ev.postBroadcast(c, b) })
	e.GET("/v1/broadcasts/:id", func(c echo.Context) error { return ev.broadcastCall(c, b.Progress) })
	e.DELETE("/v1/broadcasts/:id", func(c echo.Context) error { return ev.broadcastCall(c, b.Cancel) })
}

func jsonError(c echo.Context, status int, err error) error {
	return c.JSON(status, map[string]string{"error": err.Error()})
}

func (ev *Events) postBroadcast(c echo.Context, b Broadcasts) error {
	r := c.Request()
	cred, err := ev.credentials(r.Header)
	if err != nil {
		ev.log.Warn("broadcast refused", "err", err)
		return jsonError(c, http.StatusUnauthorized, err)
	}
	body, err := guard.ReadBody(c.Response(), r, maxBroadcastBody)
	if err != nil {
		status, msg := guard.Status(c.Response(), err)
		return jsonError(c, status, errors.New(msg))
	}
	nonce, err := ev.verify(cred, body)
	if err != nil {
		ev.log.Warn("broadcast refused", "err", err)
		return jsonError(c, http.StatusUnauthorized, err)
	}
	var in broadcastIn
	if err := strictDecode(body, &in); err != nil {
		return jsonError(c, http.StatusBadRequest, fmt.Errorf("body: %v", err))
	}
	if err := ev.checkBroadcast(in); err != nil {
		return jsonError(c, http.StatusBadRequest, err)
	}
	offer, err := in.offerFor(in.Respond || in.Message != "")
	if err != nil {
		return jsonError(c, http.StatusBadRequest, err)
	}
	if status, err := ev.claim(r.Context(), nonce); err != nil {
		return jsonError(c, status, err)
	}
	e := botgw.Event{Respond: in.Respond, Offer: offer}
	if in.Event != nil {
		e.Text, e.Key = in.Event.Text, in.Event.Key
	}
	total, err := guard.Bound(r.Context(), broadcastWait, func(ctx context.Context) (int, error) {
		return b.Create(ctx, in.ID, in.Chats, in.Message, e)
	})
	if err != nil {
		ev.log.Warn("broadcast not stored", "broadcast", in.ID, "err", err)
		if nonce != "" {
			_ = ev.nonces.Forget(context.WithoutCancel(r.Context()), nonce)
		}
		return jsonError(c, http.StatusServiceUnavailable, errors.New("could not store the broadcast; retry (the id makes retries safe)"))
	}
	return c.JSON(http.StatusAccepted, map[string]any{"id": in.ID, "total": total})
}

// claim takes a signed request's nonce once (replay protection), waiting
// on Redis at most guard.IngressWait.
func (ev *Events) claim(ctx context.Context, nonce string) (int, error) {
	if nonce == "" {
		return 0, nil
	}
	fresh, err := guard.Bound(ctx, guard.IngressWait, func(ctx context.Context) (bool, error) {
		return ev.nonces.Once(ctx, nonce, 2*sigWindow)
	})
	switch {
	case err != nil:
		ev.log.Warn("replay check failed", "err", err)
		return http.StatusServiceUnavailable, errors.New("could not check the signature for replay; retry")
	case !fresh:
		ev.log.Warn("request refused", "err", "signature replayed")
		return http.StatusUnauthorized, errors.New("x-botgw-signature: already used (replay)")
	}
	return 0, nil
}

// checkBroadcast validates a broadcast; every error names its field.
func (ev *Events) checkBroadcast(in broadcastIn) error {
	switch {
	case !broadcastID.MatchString(in.ID):
		return errors.New("id: required, 1-128 characters of A-Z a-z 0-9 _ . : -")
	case len(in.Chats) == 0 || len(in.Chats) > maxBroadcastChats:
		return fmt.Errorf("chats: want 1 to %d chats, got %d", maxBroadcastChats, len(in.Chats))
	case (in.Message == "") == (in.Event == nil):
		return errors.New("message: want exactly one of message and event")
	case in.Message != "" && in.Respond:
		return errors.New("respond: only with an event (a message is sent as it is)")
	}
	text := in.Message
	if in.Event != nil {
		if text = in.Event.Text; strings.TrimSpace(text) == "" {
			return errors.New("event.text: required")
		}
		if len(in.Event.Key) > 64 {
			return errors.New("event.key: longer than 64 characters")
		}
	}
	if strings.TrimSpace(text) == "" || utf8.RuneCountInString(text) > maxBroadcastText {
		return fmt.Errorf("message: want 1 to %d characters", maxBroadcastText)
	}
	return ev.checkChats(in.Chats)
}

// checkChats wants valid chat keys of configured channels, each once.
func (ev *Events) checkChats(chats []string) error {
	seen := make(map[string]int, len(chats))
	for i, s := range chats {
		k, err := botgw.ParseChatKey(s)
		if err != nil {
			return fmt.Errorf("chats[%d]: %v", i, err)
		}
		if !slices.Contains(ev.channels, k.Channel) {
			return fmt.Errorf("chats[%d]: unknown channel %q (configured: %s)", i, k.Channel, strings.Join(ev.channels, ", "))
		}
		if j, dup := seen[s]; dup {
			return fmt.Errorf("chats[%d]: the same chat as chats[%d]", i, j)
		}
		seen[s] = i
	}
	return nil
}

// broadcastCall authenticates GET and DELETE and answers with what fn
// returns. A signature covers the method and the path in place of a body
// (BodilessContent), so it authorises that one method; it is not claimed
// as a nonce: reading and cancelling again are harmless, so one signature
// may poll within its window.
func (ev *Events) broadcastCall(c echo.Context, fn func(context.Context, string) (any, error)) error {
	r := c.Request()
	if _, err := ev.authenticate(r.Header, BodilessContent(r.Method, r.URL.Path)); err != nil {
		ev.log.Warn("broadcast call refused", "err", err)
		return jsonError(c, http.StatusUnauthorized, err)
	}
	id, err := pathParam(c, "id")
	if err != nil {
		return jsonError(c, http.StatusNotFound, errors.New("id: no such broadcast"))
	}
	out, err := fn(r.Context(), id)
	switch {
	case errors.Is(err, botgw.ErrNotFound):
		return jsonError(c, http.StatusNotFound, errors.New("id: no such broadcast"))
	case err != nil:
		ev.log.Warn("broadcast call", "err", err)
		return jsonError(c, http.StatusServiceUnavailable, errors.New("could not read the broadcast; retry"))
	}
	return c.JSON(http.StatusOK, out)
}
