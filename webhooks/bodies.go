package webhooks

import (
	"github.com/labstack/echo/v4"

	"github.com/botgw/botgw/webhooks/guard"
)

// bodies charges every request's body to the budget of bodies in flight
// (per client and in all, docs/security.md) and tells refused of each body
// refused or cut off, by route pattern.
func bodies(b *guard.Budget, refused func(route, reason string)) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			var on func(string)
			if refused != nil {
				route := c.Path()
				on = func(reason string) { refused(route, reason) }
			}
			defer b.Track(c.Response(), c.Request(), on)()
			return next(c)
		}
	}
}
