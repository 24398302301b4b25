// Package slack is the Slack channel of the gateway, built on
// github.com/slack-go/slack. It receives direct messages and mentions either
// over the Events API (a signed webhook) or over Socket Mode, hands them to
// the engine as botgw.Inbound, and posts replies as Slack mrkdwn, one
// conversation per thread.
//
// Chat keys: a direct message is "slack:<D…>", a direct message in a thread
// "slack:<D…>/<thread_ts>", and a mention in a channel "slack:<C…>/<thread_ts>"
// where thread_ts is the mention's own ts when it starts a thread. Replies go
// into that thread. In channels only messages that mention the bot are read,
// including follow-ups in a thread; direct messages are always read.
package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels"
	"github.com/botgw/botgw/state/ratelimit"
	goredis "github.com/redis/go-redis/v9"
	"github.com/slack-go/slack"
)

// name is the channel's name in chat keys, config and the webhook route.
const name = "slack"

// httpTimeout bounds every Web API call; slack.New's client has none.
const httpTimeout = 30 * time.Second

var (
	_ botgw.Channel         = (*eventsChannel)(nil)
	_ botgw.WebhookReceiver = (*eventsChannel)(nil)
	_ botgw.Channel         = (*socketChannel)(nil)
	_ botgw.Listener        = (*socketChannel)(nil)
	_ botgw.Typer           = (*adapter)(nil)
	_ botgw.Starter         = (*adapter)(nil)
	_ botgw.Health          = (*adapter)(nil)
)

// Env is what the channel needs besides its config.
type Env struct {
	// Pacer paces sends per channel, shared by every replica; required.
	Pacer *ratelimit.Limiter
	// Redis keeps the installations, under KeyPrefix; required with
	// Config.ClientID (installs by OAuth).
	Redis     goredis.UniversalClient
	KeyPrefix string
	// PublicURL is the gateway's public base URL, which the OAuth redirect
	// URL is built on; required with Config.ClientID.
	PublicURL string
}

// New builds the Slack channel for cfg. It does no network I/O; Start learns
// the bot's own ids. The result is a botgw.WebhookReceiver in events mode and
// a botgw.Listener in socket mode (and a WebhookReceiver of the install
// routes when workspaces install the app by OAuth).
func New(cfg Config, env Env, log *slog.Logger) (botgw.Channel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if env.Pacer == nil {
		return nil, errors.New("slack: a pacer is required")
	}
	cfg = cfg.withDefaults()
	a := &adapter{cfg: cfg, pacer: env.Pacer, log: log.With("channel", name), routes: routesAt(webhookBase)}
	a.api = a.newClient(cfg.BotToken)
	if cfg.Installs() {
		if err := a.openInstalls(env); err != nil {
			return nil, err
		}
	}
	switch {
	case cfg.Mode == ModeSocket && cfg.Installs():
		a.setHealth(errors.New("slack: socket mode not connected yet"))
		return &socketAppChannel{socketChannel{adapter: a}}, nil
	case cfg.Mode == ModeSocket:
		a.setHealth(errors.New("slack: socket mode not connected yet"))
		return &socketChannel{adapter: a}, nil
	}
	if cfg.Installs() {
		return &eventsAppChannel{eventsChannel{adapter: a}}, nil
	}
	return &eventsChannel{adapter: a}, nil
}

// newClient is a Web API client with token, on the configured API URL.
func (a *adapter) newClient(token string) *slack.Client {
	opts := []slack.Option{slack.OptionHTTPClient(channels.HTTPClient(httpTimeout))}
	if a.cfg.APIURL != "" {
		opts = append(opts, slack.OptionAPIURL(a.cfg.APIURL))
	}
	if a.cfg.Mode == ModeSocket {
		opts = append(opts, slack.OptionAppLevelToken(a.cfg.AppToken))
	}
	return slack.New(token, opts...)
}

// adapter is what both receive modes share: sending, the thinking signal,
// the bot's identity and health.
type adapter struct {
	channels.Ignored // counts events read and not passed on

	cfg Config
	api *slack.Client // the config's bot token; with installs, no token
	log *slog.Logger
	// routes are the channel's webhook paths.
	routes routes
	// installs keeps the workspaces that installed the app (nil: one bot
	// token from the config); app holds what installs by OAuth use.
	installs *installStore
	app      *appState
	sent     channels.Progress
	// pacer holds sends to the platform's limits, shared by every replica.
	pacer *ratelimit.Limiter

	mu     sync.RWMutex
	self   identity // the bot's own ids, from auth.test
	health error
}

// identity is the bot user and bot ids of this app in its workspace.
type identity struct{ UserID, BotID string }

// Name is "slack".
func (a *adapter) Name() string { return name }

// Start learns the bot's own user and bot ids with auth.test, so the bot's
// messages are never read as input and its mention is stripped from text.
// With installs, each installation knows its bot user: Start runs the
// sweep of the installations (token refresh, key change) until Close.
func (a *adapter) Start(ctx context.Context) error {
	if a.installs != nil {
		a.startApp()
		return nil
	}
	res, err := a.api.AuthTestContext(ctx)
	if err != nil {
		err = fmt.Errorf("slack auth.test: %w", err)
		a.setHealth(err)
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.self = identity{UserID: res.UserID, BotID: res.BotID}
	if a.cfg.Mode == ModeEvents {
		a.health = nil
	}
	a.log.Info("slack bot identified", "user", res.UserID, "bot", res.BotID, "team", res.TeamID)
	return nil
}

// Health reports a failed auth.test, or in socket mode a lost connection.
func (a *adapter) Health() error {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.health
}

func (a *adapter) setHealth(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.health = err
}

func (a *adapter) bot() identity {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.self
}
