// Package web is the built-in web chat: a page at / and a JSON endpoint at
// POST /v1/chat that waits for the turn's reply. It needs no platform
// account, so it is what `go run ./cmd/botgw` starts with. Replies go to the
// HTTP request waiting for them; replies nobody waits for (an app event with
// respond: true) are kept briefly for the page to poll. It keeps its waiters
// in process memory: run it on one replica.
package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/markup"
)

// Name is the channel name in chat keys: web:<session>.
const Name = "web"

// maxUnclaimed bounds the replies kept per chat for polling.
const maxUnclaimed = 20

// Config is the web channel's config section (channels.web).
type Config struct {
	ReplyTimeout time.Duration `yaml:"reply_timeout"` // how long POST /v1/chat waits; default 2m30s
}

// Adapter is the web channel.
type Adapter struct {
	cfg Config
	log *slog.Logger

	mu        sync.Mutex
	waiters   map[botgw.ChatKey][]chan botgw.Outbound
	unclaimed map[botgw.ChatKey][]botgw.Outbound
}

var (
	_ botgw.Channel = (*Adapter)(nil)
)

// New builds the web channel.
func New(cfg Config, log *slog.Logger) *Adapter {
	if cfg.ReplyTimeout <= 0 {
		cfg.ReplyTimeout = 150 * time.Second
	}
	return &Adapter{cfg: cfg, log: log,
		waiters:   make(map[botgw.ChatKey][]chan botgw.Outbound),
		unclaimed: make(map[botgw.ChatKey][]botgw.Outbound)}
}

func (a *Adapter) Name() string { return Name }

// Send hands the reply, as plain text (the page shows no markup), to every
// request waiting on the chat, or keeps it for the page to poll. It never
// blocks.
func (a *Adapter) Send(_ context.Context, m botgw.Outbound) error {
	m.Text = strings.Join(markup.Plain.Render(m.Text), "\n\n")
	a.mu.Lock()
	defer a.mu.Unlock()
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
	q := append(a.unclaimed[m.Chat], m)
	if len(q) > maxUnclaimed {
		q = q[len(q)-maxUnclaimed:]
	}
	a.unclaimed[m.Chat] = q
	return nil
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

// take returns and forgets the replies nobody waited for.
func (a *Adapter) take(k botgw.ChatKey) []botgw.Outbound {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := a.unclaimed[k]
	delete(a.unclaimed, k)
	return q
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
