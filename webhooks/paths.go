package webhooks

import (
	"net/url"

	"github.com/labstack/echo/v4"
)

// escapedPath makes echo route every request on its escaped path: echo
// matches URL.RawPath when it is set and the decoded URL.Path otherwise,
// and Go leaves RawPath empty whenever the client's escaping is the
// default one ("web:victim%2541", ':' left as it is). Routed on the raw
// form always, a path parameter is the client's text as sent, and
// pathParam decodes it exactly once: "%2541" is "%41", never "A"
// (docs/http-api.md).
func escapedPath(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := c.Request().URL
		u.RawPath = u.EscapedPath()
		return next(c)
	}
}

// pathParam is the path parameter name, decoded once; an escape that is
// not one ("%zz") is an error.
func pathParam(c echo.Context, name string) (string, error) {
	return url.PathUnescape(c.Param(name))
}
