package webhooks

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"
)

// WithStream serves GET /v1/admin/stream, the conversation stream's sinks
// and what waits for each, from status.
func (a *Admin) WithStream(status func(ctx context.Context) (any, error)) *Admin {
	a.stream = status
	return a
}

func (a *Admin) streamStatus(c echo.Context) error {
	if a.stream == nil {
		return c.JSON(http.StatusOK, map[string]any{"sinks": []any{}})
	}
	v, err := a.stream(c.Request().Context())
	if err != nil {
		a.log.Warn("stream status", "err", err)
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"error": "could not read the stream's backlog; retry"})
	}
	return c.JSON(http.StatusOK, v)
}
