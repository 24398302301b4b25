package webhooks

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/operator"
)

// optOutLister lists the chats that opted out of proactive messages
// (GET /v1/admin/chats?opted_out=true). operator.API implements it.
type optOutLister interface {
	OptedOutChats(ctx context.Context, cursor string, n int) ([]operator.OptedOut, string, error)
}

// optedOutList answers GET /v1/admin/chats?opted_out=true.
func (a *Admin) optedOutList(c echo.Context, n int) error {
	l, ok := a.op.(optOutLister)
	if !ok {
		return echo.NewHTTPError(http.StatusNotImplemented, "opted_out: this store keeps no opt-outs")
	}
	items, next, err := l.OptedOutChats(c.Request().Context(), c.QueryParam("cursor"), n)
	switch {
	case errors.Is(err, botgw.ErrBadCursor):
		return echo.NewHTTPError(http.StatusBadRequest, "cursor: not a cursor this API returned")
	case errors.Is(err, botgw.ErrUnsupported):
		return echo.NewHTTPError(http.StatusNotImplemented, "opted_out: this store keeps no opt-outs")
	case err != nil:
		return err
	}
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.Chat
	}
	return c.JSON(http.StatusOK, map[string]any{"chats": names, "items": items, "next": next})
}
