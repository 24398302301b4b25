// Package web is the built-in web chat: a page at / and a JSON endpoint at
// POST /v1/chat that waits for the turn's reply. It needs no platform
// account, so it is what `go run ./cmd/botgw` starts with. Replies go to the
// HTTP request waiting for them; replies nobody waits for (an app event with
// respond: true) are kept briefly for the page to poll. It keeps its waiters
// in process memory: run it on one replica.
//
// Who may use it is CONTRACT.md's /v1/chat rule (guard.go): browsers only
// from allowed origins, other clients on a loopback listen or with the token.
package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/markup"
	"github.com/botgw/botgw/webhooks/guard"
)

// Name is the channel name in chat keys: web:<session>.
const Name = "web"

const (
	// maxUnclaimed bounds the replies kept per chat for polling.
	maxUnclaimed = 20
	// maxUnclaimedChats bounds the chats with replies kept for polling; past
	// it the chat whose replies are oldest loses them.
	maxUnclaimedChats = 10000
)

// Config is the web channel's config section (channels.web).
type Config struct {
	ReplyTimeout time.Duration `yaml:"reply_timeout"` // how long POST /v1/chat waits; default 2m30s
	// AllowedOrigins may call /v1/chat from a browser, besides the gateway's
	// own origin ("https://game.example.com").
	AllowedOrigins []string `yaml:"allowed_origins"`
	// Token, when set, is required as Bearer from clients that send no
	// Origin (servers, curl); it is what opens the API on a non-loopback
	// listen to them.
	Token string `yaml:"token"`
	// UnclaimedTTL is how long a reply nobody waited for is kept for the
	// page to poll; default 10m.
	UnclaimedTTL time.Duration `yaml:"unclaimed_ttl"`
	// PerClientPerMinute bounds the messages one client (IP address; an
	// IPv6 /64) sends without the token, across replicas; default 20.
	PerClientPerMinute int `yaml:"per_client_per_minute"`
}

// kept is a reply nobody waited for, with when it arrived.
type kept struct {
	m  botgw.Outbound
	at time.Time
}

// Adapter is the web channel.
type Adapter struct {
	cfg     Config
	site    Site
	origins []string                 // normalised AllowedOrigins
	own     atomic.Pointer[[]string] // the gateway's own origins (ownOrigins)
	log     *slog.Logger
	now     func() time.Time
	limit   ClientLimit   // nil: clients are not limited
	proxies guard.Proxies // whose X-Forwarded-For names the client

	mu        sync.Mutex
	waiters   map[botgw.ChatKey][]chan botgw.Outbound
	unclaimed map[botgw.ChatKey][]kept
	answered  map[botgw.ChatKey][]kept // every reply sent, for a retried POST (answers.go)
	swept     time.Time
}

var (
	_ botgw.Channel = (*Adapter)(nil)
)

// New builds the web channel served at site.
func New(cfg Config, site Site, log *slog.Logger) *Adapter {
	if cfg.ReplyTimeout <= 0 {
		cfg.ReplyTimeout = 150 * time.Second
	}
	if cfg.UnclaimedTTL <= 0 {
		cfg.UnclaimedTTL = 10 * time.Minute
	}
	if cfg.PerClientPerMinute == 0 {
		cfg.PerClientPerMinute = DefaultPerClientPerMinute
	}
	a := &Adapter{cfg: cfg, site: site, log: log, now: time.Now,
		waiters:   make(map[botgw.ChatKey][]chan botgw.Outbound),
		unclaimed: make(map[botgw.ChatKey][]kept), answered: make(map[botgw.ChatKey][]kept)}
	for _, o := range cfg.AllowedOrigins {
		a.origins = append(a.origins, normOrigin(o))
	}
	own := ownOrigins(site, listenPort(site.Listen))
	a.own.Store(&own)
	return a
}

func (a *Adapter) Name() string { return Name }

// Send hands the reply, as plain text (the page shows no markup), to every
// request waiting on the chat, or keeps it for the page to poll (at most
// maxUnclaimed per chat, for UnclaimedTTL). It never blocks.
func (a *Adapter) Send(_ context.Context, m botgw.Outbound) error {
	m.Text = strings.Join(markup.Plain.Render(m.Text), "\n\n")
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	a.sweep(now)
	a.remember(m, now)
	if ws := a.waiters[m.Chat]; len(ws) > 0 {
		for _, w := range ws {
			w <- m
		}
		delete(a.waiters, m.Chat)
		return nil
	}
	if m.Text == "" {
		return nil // a blank reply is no message to poll for
	}
	q := append(a.unclaimed[m.Chat], kept{m: m, at: now})
	if len(q) > maxUnclaimed {
		q = q[len(q)-maxUnclaimed:]
	}
	a.unclaimed[m.Chat] = q
	if len(a.unclaimed) > maxUnclaimedChats {
		a.evictOldest()
	}
	return nil
}

// sweep drops expired replies, at most once per tenth of the TTL. Callers
// hold mu.
func (a *Adapter) sweep(now time.Time) {
	if now.Sub(a.swept) < a.cfg.UnclaimedTTL/10 {
		return
	}
	a.swept = now
	for _, m := range []map[botgw.ChatKey][]kept{a.unclaimed, a.answered} {
		for k, q := range m {
			if q = a.fresh(q, now); len(q) == 0 {
				delete(m, k)
			} else {
				m[k] = q
			}
		}
	}
}

// fresh is q without the replies older than the TTL (q is oldest first).
func (a *Adapter) fresh(q []kept, now time.Time) []kept {
	for len(q) > 0 && now.Sub(q[0].at) >= a.cfg.UnclaimedTTL {
		q = q[1:]
	}
	return q
}

// evictOldest forgets the chat whose newest kept reply is oldest. Callers
// hold mu.
func (a *Adapter) evictOldest() { evictOldest(a.unclaimed) }

// evictOldest forgets m's chat whose newest reply is oldest.
func evictOldest(m map[botgw.ChatKey][]kept) {
	var oldest botgw.ChatKey
	var at time.Time
	for k, q := range m {
		if last := q[len(q)-1].at; at.IsZero() || last.Before(at) {
			oldest, at = k, last
		}
	}
	delete(m, oldest)
}

// wait registers a waiter for the chat's next reply; cancel unregisters it.
func (a *Adapter) wait(k botgw.ChatKey) (<-chan botgw.Outbound, func()) {
	ch := make(chan botgw.Outbound, 1)
	a.mu.Lock()
	a.waiters[k] = append(a.waiters[k], ch)
	a.mu.Unlock()
	return ch, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		ws := a.waiters[k]
		for i, w := range ws {
			if w == ch {
				a.waiters[k] = append(ws[:i:i], ws[i+1:]...)
				break
			}
		}
		if len(a.waiters[k]) == 0 {
			delete(a.waiters, k)
		}
	}
}

// take returns and forgets the replies nobody waited for that have not
// expired.
func (a *Adapter) take(k botgw.ChatKey) []botgw.Outbound {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := a.fresh(a.unclaimed[k], a.now())
	delete(a.unclaimed, k)
	out := make([]botgw.Outbound, len(q))
	for i, r := range q {
		out[i] = r.m
	}
	return out
}

// unclaimedChats is how many chats have replies kept (tests).
func (a *Adapter) unclaimedChats() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.unclaimed)
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
