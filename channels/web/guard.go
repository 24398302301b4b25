package web

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/botgw/botgw/webhooks/guard"
)

// Site is where the gateway serves the web chat: what its own origin is and
// whether its listen address is loopback-only.
type Site struct {
	// Loopback: the listen address accepts connections from this machine
	// only, so a request without an Origin (curl, a local server) is trusted.
	Loopback bool
	// PublicURL is the gateway's public base URL (public_url), if any; its
	// origin counts as the gateway's own.
	PublicURL string
	// Listen is the listen address ("127.0.0.1:8080"). On a loopback
	// listen, http://127.0.0.1:<port> and http://localhost:<port> are the
	// gateway's own origins too (port 0: the port Listening is told of).
	Listen string
}

// Loopback reports whether a listen address ("host:port") only accepts
// connections from this machine: localhost or a loopback IP. An empty host
// (":8080") listens everywhere.
func Loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Open reports whether the config leaves the web chat open to anyone who
// can reach a non-loopback listen address: no allowed origins and no token.
func (c Config) Open() bool { return len(c.AllowedOrigins) == 0 && c.Token == "" }

// errForbidden and errUnauthorized map to 403 and 401.
var (
	errForbidden    = errors.New("forbidden")
	errUnauthorized = errors.New("unauthorized")
)

// caller is who a request authorized as.
type caller int

const (
	browser caller = iota // an allowed Origin: the public web chat, limited per client
	local                 // no Origin on a loopback listen without a token: limited per client
	holder                // the channels.web.token as Bearer: a trusted server, not limited
)

// authorize applies CONTRACT.md's /v1/chat rule. A request with an Origin
// is a browser's and must come from an allowed origin or the gateway's
// own. A request without one is not a browser's, whatever its Sec-Fetch-*
// headers say: it needs the token as Bearer wherever a token is set or the
// listen address is not loopback. A request a browser marks cross-site is
// refused whatever it carries.
func (a *Adapter) authorize(r *http.Request) (caller, string, error) {
	if origin := r.Header.Get("Origin"); origin != "" {
		if a.allowedOrigin(origin) {
			return browser, "", nil
		}
		return 0, "origin: " + origin + " is not allowed (channels.web.allowed_origins)", errForbidden
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return 0, "origin: cross-site requests are not allowed", errForbidden
	}
	switch {
	case guard.BearerIs(r.Header, []byte(a.cfg.Token)):
		return holder, "", nil
	case a.cfg.Token == "" && a.site.Loopback:
		return local, "", nil
	}
	return 0, "authorization: channels.web.token required as Bearer", errUnauthorized
}

// allowedOrigin: listed in allowed_origins, or the gateway's own origin
// (ownOrigins). The request's Host never counts: any client can send an
// Origin equal to the Host it sends.
func (a *Adapter) allowedOrigin(origin string) bool {
	o := normOrigin(origin)
	return slices.Contains(a.origins, o) || slices.Contains(*a.own.Load(), o)
}

// normOrigin lower-cases an origin and drops a trailing slash.
func normOrigin(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "/")
}

// Validate checks the section; errors name the key (channels.web.…).
func (c Config) Validate() error {
	var errs []error
	for i, o := range c.AllowedOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.TrimSuffix(u.Path, "/") != "" || u.RawQuery != "" {
			errs = append(errs, fmt.Errorf("channels.web.allowed_origins[%d]: want an origin like https://game.example.com, got %q", i, o))
		}
	}
	if strings.ContainsAny(c.Token, " \t\r\n") {
		errs = append(errs, errors.New("channels.web.token: must not contain spaces"))
	}
	if c.ReplyTimeout < 0 {
		errs = append(errs, errors.New("channels.web.reply_timeout: must not be negative"))
	}
	if c.UnclaimedTTL < 0 {
		errs = append(errs, errors.New("channels.web.unclaimed_ttl: must not be negative"))
	}
	if c.PerClientPerMinute < 0 {
		errs = append(errs, errors.New("channels.web.per_client_per_minute: must not be negative (0: the default, 20)"))
	}
	return errors.Join(errs...)
}
