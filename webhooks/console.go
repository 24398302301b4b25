package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/webhooks/guard"
)

// Console is what the operator console needs beyond Operator: taking a
// chat over and acting on dead letters. operator.API implements it. Every
// action is audited with actor. Unknown chats and dead letters are
// botgw.ErrNotFound.
type Console interface {
	// Pause takes chat k over for d (0: the configured default) and
	// returns when the pause ends by itself.
	Pause(ctx context.Context, k botgw.ChatKey, d time.Duration, actor string) (time.Time, error)
	Resume(ctx context.Context, k botgw.ChatKey, actor string) error
	// Say sends text to the chat as the assistant, signed by operator.
	Say(ctx context.Context, k botgw.ChatKey, text string, offer botgw.Offer, operator, actor string) error
	// Inject adds an app event to the chat.
	Inject(ctx context.Context, k botgw.ChatKey, ev botgw.Event, actor string) error
	// Chats lists chats newest activity first (botgw.ChatIndex);
	// botgw.ErrBadCursor for a cursor it did not hand out.
	Chats(ctx context.Context, q botgw.ChatQuery) ([]botgw.ChatSummary, string, error)
	ListDeadLetters(ctx context.Context, cursor string, n int) ([]botgw.DeadLetter, string, error)
	RetryDeadLetter(ctx context.Context, id, actor string) error
	DiscardDeadLetter(ctx context.Context, id, actor string) error
}

// maxOperatorText caps what an operator may send in one message.
const maxOperatorText = 8000

// checkOperatorText is 400 naming `text` unless it holds 1 to
// maxOperatorText characters.
func checkOperatorText(text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return echo.NewHTTPError(http.StatusBadRequest, "text: required")
	case utf8.RuneCountInString(text) > maxOperatorText:
		return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("text: longer than %d characters", maxOperatorText))
	}
	return nil
}

func (a *Admin) mountConsole(g *echo.Group) {
	if a.console == nil {
		return
	}
	g.POST("/chats/:chat/pause", a.pause)
	g.POST("/chats/:chat/resume", a.resume)
	g.POST("/chats/:chat/messages", a.message)
	g.POST("/chats/:chat/events", a.injectEvent)
	g.GET("/dead-letters", a.deadLetters)
	g.POST("/dead-letters/:id/retry", a.retryDeadLetter)
	g.DELETE("/dead-letters/:id", a.discardDeadLetter)
}

// readBody decodes an optional small JSON object into v; unknown fields
// are refused so a typo is not silently ignored.
func readBody(c echo.Context, v any) error {
	b, err := guard.ReadBody(c.Response(), c.Request(), maxConsoleBody)
	if err != nil {
		return echo.NewHTTPError(guard.Status(c.Response(), err))
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return echo.NewHTTPError(http.StatusBadRequest, te.Field+": want a "+te.Type.String())
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return echo.NewHTTPError(http.StatusBadRequest, strings.Trim(f, `"`)+": unknown field")
		}
		return echo.NewHTTPError(http.StatusBadRequest, "body: invalid JSON")
	}
	return nil
}

// actorOf names who acted through the API: "admin-api", with the
// operator's name when the request gives one.
func actorOf(operator string) string {
	if operator = strings.TrimSpace(operator); operator != "" {
		return "admin-api (" + operator + ")"
	}
	return "admin-api"
}

// notFound maps botgw.ErrNotFound to a 404 naming field.
func notFound(err error, field, what string) error {
	if errors.Is(err, botgw.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, field+": no "+what)
	}
	return err
}

func (a *Admin) pause(c echo.Context) error {
	k, err := a.chatParam(c)
	if err != nil {
		return err
	}
	var body struct {
		For      string `json:"for"`
		Operator string `json:"operator"`
	}
	if err := readBody(c, &body); err != nil {
		return err
	}
	var d time.Duration
	if body.For != "" {
		if d, err = time.ParseDuration(body.For); err != nil || d <= 0 || d > 30*24*time.Hour {
			return echo.NewHTTPError(http.StatusBadRequest, `for: want a duration such as "30m" or "2h", at most 720h`)
		}
	}
	until, err := a.console.Pause(c.Request().Context(), k, d, actorOf(body.Operator))
	if err != nil {
		return notFound(err, "chat", "conversation "+k.String())
	}
	return c.JSON(http.StatusOK, map[string]string{"paused_until": until.UTC().Format(time.RFC3339)})
}

func (a *Admin) resume(c echo.Context) error {
	k, err := a.chatParam(c)
	if err != nil {
		return err
	}
	var body struct {
		Operator string `json:"operator"`
	}
	if err := readBody(c, &body); err != nil {
		return err
	}
	if err := a.console.Resume(c.Request().Context(), k, actorOf(body.Operator)); err != nil {
		return notFound(err, "chat", "conversation "+k.String())
	}
	return c.JSON(http.StatusOK, map[string]any{"resumed": true, "chat": k.String()})
}

func (a *Admin) message(c echo.Context) error {
	k, err := a.chatParam(c)
	if err != nil {
		return err
	}
	var body struct {
		Text     string `json:"text"`
		Operator string `json:"operator"`
		offerIn
	}
	if err := readBody(c, &body); err != nil {
		return err
	}
	if err := checkOperatorText(body.Text); err != nil {
		return err
	}
	offer, err := body.offer()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	switch {
	case strings.TrimSpace(body.Operator) == "":
		return echo.NewHTTPError(http.StatusBadRequest, "operator: required (the name the history records)")
	case len(body.Operator) > 100:
		return echo.NewHTTPError(http.StatusBadRequest, "operator: longer than 100 characters")
	}
	op := strings.TrimSpace(body.Operator)
	if err := a.console.Say(c.Request().Context(), k, body.Text, offer, op, actorOf(op)); err != nil {
		return notFound(err, "chat", "conversation "+k.String())
	}
	return c.JSON(http.StatusAccepted, map[string]any{"accepted": true})
}

func (a *Admin) injectEvent(c echo.Context) error {
	k, err := a.chatParam(c)
	if err != nil {
		return err
	}
	var body struct {
		Text     string `json:"text"`
		Key      string `json:"key"`
		Respond  bool   `json:"respond"`
		Operator string `json:"operator"`
	}
	if err := readBody(c, &body); err != nil {
		return err
	}
	if err := checkOperatorText(body.Text); err != nil {
		return err
	}
	if len(body.Key) > 64 {
		return echo.NewHTTPError(http.StatusBadRequest, "key: longer than 64 characters")
	}
	ev := botgw.Event{Text: body.Text, Key: body.Key, Respond: body.Respond}
	if err := a.console.Inject(c.Request().Context(), k, ev, actorOf(body.Operator)); err != nil {
		return notFound(err, "chat", "conversation "+k.String())
	}
	return c.JSON(http.StatusAccepted, map[string]any{"accepted": true})
}

func (a *Admin) deadLetters(c echo.Context) error {
	n, err := limitParam(c)
	if err != nil {
		return err
	}
	cursor := c.QueryParam("cursor")
	if cursor != "" && !validDeadLetterID(cursor) {
		return echo.NewHTTPError(http.StatusBadRequest, "cursor: not a cursor this API returned")
	}
	items, next, err := a.console.ListDeadLetters(c.Request().Context(), cursor, n)
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(items))
	for i, d := range items {
		out[i] = map[string]any{"id": d.ID, "chat": d.Chat, "kind": d.Kind, "reason": d.Reason,
			"at": d.At.UTC().Format(time.RFC3339Nano), "attempts": d.Attempts, "text": d.Text}
	}
	return c.JSON(http.StatusOK, map[string]any{"items": out, "next": next})
}

func (a *Admin) deadLetterID(c echo.Context) (string, error) {
	id, err := pathParam(c, "id")
	if err != nil || !validDeadLetterID(id) {
		return "", echo.NewHTTPError(http.StatusNotFound, "id: no dead letter "+strconv.Quote(id))
	}
	return id, nil
}

func (a *Admin) retryDeadLetter(c echo.Context) error {
	id, err := a.deadLetterID(c)
	if err != nil {
		return err
	}
	if err := a.console.RetryDeadLetter(c.Request().Context(), id, actorOf(c.QueryParam("operator"))); err != nil {
		return notFound(err, "id", "dead letter "+id)
	}
	return c.JSON(http.StatusAccepted, map[string]any{"retried": true, "id": id})
}

func (a *Admin) discardDeadLetter(c echo.Context) error {
	id, err := a.deadLetterID(c)
	if err != nil {
		return err
	}
	if err := a.console.DiscardDeadLetter(c.Request().Context(), id, actorOf(c.QueryParam("operator"))); err != nil {
		return notFound(err, "id", "dead letter "+id)
	}
	return c.JSON(http.StatusOK, map[string]any{"discarded": true, "id": id})
}

// validDeadLetterID: 13 digits of unix ms and 8 hex digits.
func validDeadLetterID(id string) bool {
	if len(id) != 21 {
		return false
	}
	for i, r := range id {
		if !(r >= '0' && r <= '9') && (i < 13 || r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// chatList answers GET /v1/admin/chats from the chat index: newest
// activity first, filtered by channel and key prefix. "chats" is the
// plain key list; "items" adds what the list knows.
func (a *Admin) chatList(c echo.Context, n int) error {
	q := botgw.ChatQuery{Channel: c.QueryParam("channel"), Prefix: c.QueryParam("prefix"),
		Cursor: c.QueryParam("cursor"), Limit: n}
	if strings.ContainsAny(q.Channel, ":/ ") || len(q.Channel) > 32 {
		return echo.NewHTTPError(http.StatusBadRequest, "channel: want a channel name such as telegram")
	}
	if len(q.Prefix) > 256 {
		return echo.NewHTTPError(http.StatusBadRequest, "prefix: longer than 256 characters")
	}
	sums, next, err := a.console.Chats(c.Request().Context(), q)
	if errors.Is(err, botgw.ErrBadCursor) {
		return echo.NewHTTPError(http.StatusBadRequest, "cursor: not a cursor this API returned")
	}
	if err != nil {
		return err
	}
	names := make([]string, len(sums))
	items := make([]map[string]any, len(sums))
	for i, s := range sums {
		names[i] = s.Chat.String()
		items[i] = map[string]any{"chat": names[i], "channel": s.Chat.Channel,
			"last_activity": s.At.UTC().Format(time.RFC3339), "preview": s.Preview}
		if time.Now().Before(s.PausedUntil) {
			items[i]["paused_until"] = s.PausedUntil.UTC().Format(time.RFC3339)
		}
	}
	return c.JSON(http.StatusOK, map[string]any{"chats": names, "items": items, "next": next})
}
