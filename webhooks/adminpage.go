package webhooks

import (
	"embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

//go:embed admin/index.html admin/admin.js admin/console.js admin/whatsapp.js
var adminPage embed.FS

// pageSecurity locks the operator page down: scripts only from this origin
// (so injected markup cannot run), no framing, no referrer leaks.
const pageSecurity = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; " +
	"connect-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// mountPage serves the operator page at /admin. The page itself holds no
// data: it asks for the admin token and calls /v1/admin with it.
func (a *Admin) mountPage(e *echo.Echo) {
	page := servePage("admin/index.html", "text/html; charset=utf-8")
	e.GET("/admin", page)
	e.GET("/admin/", page)
	e.GET("/admin/admin.js", servePage("admin/admin.js", "text/javascript; charset=utf-8"))
	e.GET("/admin/console.js", servePage("admin/console.js", "text/javascript; charset=utf-8"))
	e.GET("/admin/whatsapp.js", servePage("admin/whatsapp.js", "text/javascript; charset=utf-8"))
}

func servePage(name, contentType string) echo.HandlerFunc {
	return func(c echo.Context) error {
		b, err := adminPage.ReadFile(name)
		if err != nil {
			return err
		}
		securityHeaders(c.Response().Header())
		return c.Blob(http.StatusOK, contentType, b)
	}
}

// securityHeaders are what every page the gateway serves carries.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", pageSecurity)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
}

// Page serves a page (the web chat) with the same security headers as the
// operator page: no inline script, no framing, no sniffing, no referrer.
func Page(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w.Header())
		next.ServeHTTP(w, r)
	})
}
