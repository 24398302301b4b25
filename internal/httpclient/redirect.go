package httpclient

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// maxRedirects is how many redirects a request follows, net/http's own
// default.
const maxRedirects = 10

// keptAcrossHosts are the only headers a redirect to another origin
// carries: none of them can hold a credential. Everything else (Bearer
// tokens, API keys, cookies, signatures, the gateway's own X-Botgw-*
// headers) stays with the origin it was meant for.
var keptAcrossHosts = []string{"Accept", "Accept-Encoding", "Accept-Language", "Content-Type", "Range", "User-Agent"}

// New is the client every outbound call of the gateway uses (platforms,
// models, tools, the conversation stream): rt carries its requests (nil:
// net/http's default transport), and CheckRedirect keeps credentials with
// their hosts.
func New(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: rt, CheckRedirect: CheckRedirect}
}

// CheckRedirect is the redirect policy of New's clients (docs/security.md):
//   - no redirect carries a Referer, so a URL holding a token (Telegram's
//     /bot<token>/ and /file/bot<token>/) never reaches the next host;
//   - a redirect to another origin (scheme, host or port) carries only the
//     headers of keptAcrossHosts, never Authorization, a cookie or an API
//     key, and never the request's body: a 307 or 308 that would send it
//     elsewhere is refused;
//   - at most maxRedirects are followed.
//
// net/http calls it with the next request, headers already copied, and
// sends that request as CheckRedirect leaves it.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	req.Header.Del("Referer")
	if sameOrigin(via[0], req) {
		return nil
	}
	if req.Body != nil && req.Body != http.NoBody {
		return errors.New("redirect to another host with the request's body refused")
	}
	for k := range req.Header {
		if !slices.Contains(keptAcrossHosts, k) { // net/http's keys are canonical
			req.Header.Del(k)
		}
	}
	return nil
}

// sameOrigin reports whether next goes to the scheme, host and port first
// went to.
func sameOrigin(first, next *http.Request) bool {
	a, b := first.URL, next.URL
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a.Scheme, a.Port()) == port(b.Scheme, b.Port())
}

// port is p, or the scheme's default port when p is empty.
func port(scheme, p string) string {
	switch {
	case p != "":
		return p
	case strings.EqualFold(scheme, "https"):
		return "443"
	default:
		return "80"
	}
}
