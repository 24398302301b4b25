package main

import (
	"io"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/redis/go-redis/v9"
)

// ceilingHandler is the least a webhook can do on the same HTTP stack: read
// the body, one GET and one SET on Redis, answer 200. The gateway's turns/s
// divided by its requests/s is how close the gateway gets to the ceiling.
func ceilingHandler(rc redis.UniversalClient, prefix string) http.Handler {
	e := echo.New()
	e.POST("/webhooks/telegram", func(c echo.Context) error {
		body, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return err
		}
		ctx := c.Request().Context()
		key := prefix + ":ceiling"
		if err := rc.Get(ctx, key).Err(); err != nil && err != redis.Nil {
			return err
		}
		if err := rc.Set(ctx, key, body, 0).Err(); err != nil {
			return err
		}
		return c.NoContent(http.StatusOK)
	})
	return e
}
