// Package guard is what the gateway's HTTP routes apply to a request before
// they trust it: the Bearer scheme, body limits enforced while reading, the
// memory budget of request bodies in flight, the client's address behind
// trusted proxies, and the bounded wait on Redis at ingress. It depends on
// the standard library and the root package only, so channel adapters and
// the server share it.
package guard

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// Bearer returns the token of an "Authorization: Bearer <token>" header.
// The scheme name is case-insensitive (RFC 9110 §11.1); the token is not.
func Bearer(h http.Header) (string, bool) {
	scheme, tok, ok := strings.Cut(h.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	tok = strings.TrimLeft(tok, " ")
	return tok, tok != ""
}

// BearerIs reports, in constant time, whether the request carries want as
// its Bearer token. An empty want matches nothing.
func BearerIs(h http.Header, want []byte) bool {
	tok, ok := Bearer(h)
	return ok && len(want) > 0 && subtle.ConstantTimeCompare([]byte(tok), want) == 1
}
