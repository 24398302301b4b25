package web

import (
	"net"
	"net/url"
	"strings"
)

// ownOrigins is the gateway's own origin (docs/security.md): public_url's
// scheme, host and port, and on a loopback listen the loopback origins of
// port (the listen address's own host too, when it is another loopback
// IP). With neither, the gateway has no own origin: only allowed_origins
// are browsers' origins.
func ownOrigins(site Site, port string) []string {
	var out []string
	if o, ok := originOf(site.PublicURL); ok {
		out = append(out, o)
	}
	if !site.Loopback || port == "" || port == "0" {
		return out
	}
	hosts := []string{"127.0.0.1", "localhost"}
	if host, _, err := net.SplitHostPort(site.Listen); err == nil && host != "" && !strings.EqualFold(host, "localhost") && host != "127.0.0.1" {
		hosts = append(hosts, host)
	}
	for _, h := range hosts {
		out = append(out, "http://"+strings.ToLower(net.JoinHostPort(h, port)))
	}
	return out
}

// originOf is an absolute http(s) URL's origin as a browser sends it:
// lower-case scheme and host, the port only when it is not the scheme's
// default.
func originOf(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, true
}

// listenPort is the port of a listen address; "" if it has none.
func listenPort(listen string) string {
	_, port, err := net.SplitHostPort(listen)
	if err != nil {
		return ""
	}
	return port
}

// Listening tells the adapter the address the gateway listens on, so a
// loopback listen on port 0 knows its own origins.
func (a *Adapter) Listening(addr net.Addr) {
	own := ownOrigins(a.site, listenPort(addr.String()))
	a.own.Store(&own)
}
