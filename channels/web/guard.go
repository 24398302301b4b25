package web

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
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

// authorize applies CONTRACT.md's /v1/chat rule. A browser request (Origin,
// or Sec-Fetch-Site for a same-origin GET, which carries no Origin) must
// come from an allowed origin or the gateway's own; any other request is
// trusted on a loopback listen and elsewhere needs the token as Bearer.
func (a *Adapter) authorize(r *http.Request) (string, error) {
	origin := r.Header.Get("Origin")
	if origin != "" {
		if a.allowedOrigin(origin, r) {
			return "", nil
		}
		return "origin: " + origin + " is not allowed (channels.web.allowed_origins)", errForbidden
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return "origin: cross-site requests are not allowed", errForbidden
	case "same-origin":
		if a.ownHost(r.Host) {
			return "", nil
		}
	}
	if a.cfg.Token != "" {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if ok && subtle.ConstantTimeCompare([]byte(tok), []byte(a.cfg.Token)) == 1 {
			return "", nil
		}
		return "authorization: channels.web.token required as Bearer", errUnauthorized
	}
	if a.site.Loopback {
		return "", nil
	}
	return "authorization: channels.web.token required as Bearer", errUnauthorized
}

// allowedOrigin: listed in allowed_origins, or the gateway's own origin.
func (a *Adapter) allowedOrigin(origin string, r *http.Request) bool {
	o := normOrigin(origin)
	if slices.Contains(a.origins, o) {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null" (sandboxed frames, files) and anything odd
	}
	return strings.EqualFold(u.Host, r.Host) && a.ownHost(r.Host)
}

// ownHost reports whether a Host header names this gateway: public_url's
// host, or an IP address or localhost. A DNS name is trusted only through
// public_url or allowed_origins, so a rebound name (DNS rebinding) pointing
// at a loopback gateway does not pass as its own origin.
func (a *Adapter) ownHost(hostport string) bool {
	if a.publicHost != "" && strings.EqualFold(hostport, a.publicHost) {
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	return strings.EqualFold(host, "localhost") || net.ParseIP(host) != nil
}

// normOrigin lower-cases an origin and drops a trailing slash.
func normOrigin(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "/")
}

// publicHost is public_url's host[:port], lower-cased; "" if none.
func publicHost(publicURL string) string {
	u, err := url.Parse(publicURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
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
	return errors.Join(errs...)
}
