package web

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/botgw/botgw/webhooks/guard"
)

// DefaultPerClientPerMinute is channels.web.per_client_per_minute's default.
const DefaultPerClientPerMinute = 20

// ClientLimit counts each client's messages, shared by every replica.
type ClientLimit interface {
	// Allow takes one message of client's allowance of perMinute. A
	// positive wait means refused: the client may try again after it.
	Allow(ctx context.Context, client string, perMinute int) (wait time.Duration, err error)
}

// LimitClients bounds the messages each client (its IP address, behind
// proxies as the trusted proxies report it) may send without the token.
// Without a limit every client is let through.
func (a *Adapter) LimitClients(l ClientLimit, proxies guard.Proxies) {
	a.limit, a.proxies = l, proxies
}

// admit charges the request's client one message. It answers 429 with
// Retry-After when the client is over its allowance and 503 when the limit
// could not be checked in time, and reports whether to go on. Nothing is
// stored or read in either case.
func (a *Adapter) admit(w http.ResponseWriter, r *http.Request) bool {
	if a.limit == nil {
		return true
	}
	client := a.proxies.Client(r)
	wait, err := guard.Bound(r.Context(), guard.IngressWait, func(ctx context.Context) (time.Duration, error) {
		return a.limit.Allow(ctx, client, a.cfg.PerClientPerMinute)
	})
	switch {
	case err != nil:
		a.log.Warn("web client limit not checked", "err", err)
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "could not check the message limit; try again"})
		return false
	case wait > 0:
		secs := int(math.Ceil(wait.Seconds()))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeJSON(w, http.StatusTooManyRequests, map[string]string{
			"error": fmt.Sprintf("too many messages from your address (channels.web.per_client_per_minute); try again in %d s", secs)})
		return false
	}
	return true
}
