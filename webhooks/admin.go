package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/webhooks/guard"
)

// Operator is what the admin API needs of the engine side: it decodes the
// opaque state for people and applies operator actions. operator.API
// implements it.
type Operator interface {
	List(ctx context.Context, cursor string, n int) (chats []botgw.ChatKey, next string, err error)
	// Show returns a JSON-ready view of the chat: decoded history, events,
	// size, TTL left, turns, token usage. botgw.ErrNotFound when absent.
	Show(ctx context.Context, k botgw.ChatKey) (any, error)
	Reset(ctx context.Context, k botgw.ChatKey, actor string) error
	Export(ctx context.Context, k botgw.ChatKey) ([]byte, error)
	Import(ctx context.Context, k botgw.ChatKey, data []byte, actor string) error
	Audit(ctx context.Context, n int) (any, error)
}

// Admin serves /v1/admin/..., authenticated with the admin Bearer token,
// and the operator page at /admin that calls it.
type Admin struct {
	channels []botgw.Channel
	known    bool // channels were given: chats of other channels are 404
	token    []byte
	op       Operator
	console  Console                                // nil: no takeover or dead-letter routes
	stream   func(ctx context.Context) (any, error) // GET /v1/admin/stream; nil: no sinks
	log      *slog.Logger
}

// NewAdmin builds the admin API. An empty token disables it (every request
// is refused), so an unconfigured deployment never exposes conversations.
// When op also implements Console, the takeover and dead-letter routes are
// served too.
func NewAdmin(token string, op Operator, log *slog.Logger) *Admin {
	a := &Admin{token: []byte(token), op: op, log: log}
	a.console, _ = op.(Console)
	return a
}

func (a *Admin) mount(e *echo.Echo) {
	g := e.Group("/v1/admin", a.auth)
	g.GET("/chats", a.list)
	g.GET("/chats/:chat", a.show)
	g.POST("/chats/:chat/reset", a.reset)
	g.GET("/chats/:chat/export", a.export)
	g.PUT("/chats/:chat/export", a.importChat)
	g.GET("/audit", a.audit)
	g.GET("/stream", a.streamStatus)
	a.mountChannels(g)
	a.mountConsole(g)
	a.mountPage(e)
}

func (a *Admin) auth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !guard.BearerIs(c.Request().Header, a.token) {
			return c.JSON(http.StatusUnauthorized, map[string]string{"error": "authorization: admin Bearer token required"})
		}
		return next(c)
	}
}

// chatParam reads the URL-escaped chat key of the path: 400 when it is not
// a chat key, 404 when its channel is not configured.
func (a *Admin) chatParam(c echo.Context) (botgw.ChatKey, error) {
	raw, err := pathParam(c, "chat")
	if err != nil {
		return botgw.ChatKey{}, echo.NewHTTPError(http.StatusBadRequest, "chat: "+err.Error())
	}
	k, err := botgw.ParseChatKey(raw)
	if err != nil {
		return k, echo.NewHTTPError(http.StatusBadRequest, "chat: "+err.Error())
	}
	if a.known && !slices.ContainsFunc(a.channels, func(ch botgw.Channel) bool { return ch.Name() == k.Channel }) {
		return k, echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("chat: channel %q is not configured", k.Channel))
	}
	return k, nil
}

func (a *Admin) list(c echo.Context) error {
	n, err := limitParam(c)
	if err != nil {
		return err
	}
	if a.console != nil {
		return a.chatList(c, n)
	}
	chats, next, err := a.op.List(c.Request().Context(), c.QueryParam("cursor"), n)
	if errors.Is(err, botgw.ErrInvalid) {
		return echo.NewHTTPError(http.StatusBadRequest, "cursor: not one this API handed out (pass back \"next\", or nothing to start)")
	}
	if err != nil {
		return err
	}
	names := make([]string, len(chats))
	for i, k := range chats {
		names[i] = k.String()
	}
	return c.JSON(http.StatusOK, map[string]any{"chats": names, "next": next})
}

func (a *Admin) show(c echo.Context) error {
	k, err := a.chatParam(c)
	if err != nil {
		return err
	}
	v, err := a.op.Show(c.Request().Context(), k)
	if errors.Is(err, botgw.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "chat: no conversation "+k.String())
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

func (a *Admin) reset(c echo.Context) error {
	k, err := a.chatParam(c)
	if err != nil {
		return err
	}
	if err := a.op.Reset(c.Request().Context(), k, "admin-api"); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"reset": true, "chat": k.String()})
}

func (a *Admin) export(c echo.Context) error {
	k, err := a.chatParam(c)
	if err != nil {
		return err
	}
	b, err := a.op.Export(c.Request().Context(), k)
	if errors.Is(err, botgw.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "chat: no conversation "+k.String())
	}
	if err != nil {
		return err
	}
	return c.JSONBlob(http.StatusOK, b)
}

func (a *Admin) importChat(c echo.Context) error {
	k, err := a.chatParam(c)
	if err != nil {
		return err
	}
	b, err := guard.ReadBody(c.Response(), c.Request(), maxImportBody)
	if err != nil {
		return echo.NewHTTPError(guard.Status(c.Response(), err))
	}
	if !json.Valid(b) {
		return echo.NewHTTPError(http.StatusBadRequest, "body: invalid JSON")
	}
	switch err := a.op.Import(c.Request().Context(), k, b, "admin-api"); {
	case errors.Is(err, botgw.ErrInvalid):
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	case errors.Is(err, botgw.ErrBusy):
		return echo.NewHTTPError(http.StatusConflict, err.Error())
	case err != nil:
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"imported": true, "chat": k.String()})
}

func (a *Admin) audit(c echo.Context) error {
	v, err := a.op.Audit(c.Request().Context(), 200)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

// limitParam reads a page size from ?limit= (default 50), 400 naming
// `limit` unless it is 1 to 1000.
func limitParam(c echo.Context) (int, error) {
	raw := c.QueryParam("limit")
	if raw == "" {
		return 50, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > 1000 {
		return 0, echo.NewHTTPError(http.StatusBadRequest, "limit: want 1 to 1000")
	}
	return n, nil
}
