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

// New builds the Slack channel for cfg. It does no network I/O; Start learns
// the bot's own ids. The result is a botgw.WebhookReceiver in events mode and
// a botgw.Listener in socket mode. p paces its sends per channel, shared by
// every replica.
func New(cfg Config, p *ratelimit.Limiter, log *slog.Logger) (botgw.Channel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errors.New("slack: a pacer is required")
	}
	cfg = cfg.withDefaults()
	opts := []slack.Option{slack.OptionHTTPClient(channels.HTTPClient(httpTimeout))}
	if cfg.APIURL != "" {
		opts = append(opts, slack.OptionAPIURL(cfg.APIURL))
	}
	if cfg.Mode == ModeSocket {
		opts = append(opts, slack.OptionAppLevelToken(cfg.AppToken))
	}
	a := &adapter{
		cfg:   cfg,
		api:   slack.New(cfg.BotToken, opts...),
		pacer: p,
		log:   log.With("channel", name),
	}
	if cfg.Mode == ModeSocket {
		a.setHealth(errors.New("slack: socket mode not connected yet"))
		return &socketChannel{adapter: a}, nil
	}
	return &eventsChannel{adapter: a}, nil
}

// adapter is what both receive modes share: sending, the thinking signal,
// the bot's identity and health.
type adapter struct {
	channels.Ignored // counts events read and not passed on

	cfg  Config
	api  *slack.Client
	log  *slog.Logger
	sent channels.Progress
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
func (a *adapter) Start(ctx context.Context) error {
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
