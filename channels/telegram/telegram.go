// Package telegram is the Telegram channel of the gateway, built on
// github.com/go-telegram/bot. It receives updates over a webhook
// (POST /webhooks/telegram, any number of replicas) or by long polling (one
// poller per bot token), normalises messages into botgw.Inbound, and sends
// replies converted from Markdown to Telegram HTML, split to Telegram's
// 4096-character limit, paced per chat, per group and per bot by limits
// shared by every replica (state/ratelimit).
//
// Chat keys are "telegram:<chat id>" and, for forum topics,
// "telegram:<chat id>/<message thread id>". Edited messages, channel posts
// and messages from bots are ignored.
package telegram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-telegram/bot"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels"
	"github.com/botgw/botgw/internal/httpclient"
	"github.com/botgw/botgw/state/ratelimit"
)

// Name is the channel name: the prefix of chat keys and the config key.
const Name = "telegram"

// adapter sends to Telegram and normalises its updates. New wraps it in a
// type that adds exactly one receive mode.
type adapter struct {
	channels.Ignored // counts updates read and not passed on

	cfg       Config
	publicURL string
	log       *slog.Logger
	bot       *bot.Bot
	botID     int64
	username  atomic.Pointer[string] // learned from getMe in Start
	healthErr atomic.Pointer[error]  // last polling failure, nil once a poll succeeds
	pacer     *ratelimit.Limiter     // send limits shared by every replica
	progress  channels.Progress
	apiURL    string
	poll      *http.Client
	api       *http.Client  // the Bot API's client, shared with go-telegram/bot
	files     *http.Client  // file downloads (media)
	sends     recentSends   // when each chat was last sent a message (firstSignal)
	pollWait  time.Duration // long-poll timeout asked of getUpdates
	// sleep waits d or until ctx ends; tests replace it to skip real waits.
	sleep func(ctx context.Context, d time.Duration) error
}

// webhookChannel is the adapter in webhook mode (botgw.WebhookReceiver).
type webhookChannel struct{ *adapter }

// pollingChannel is the adapter in long-polling mode (botgw.Listener).
type pollingChannel struct{ *adapter }

var (
	_ botgw.Channel         = webhookChannel{}
	_ botgw.WebhookReceiver = webhookChannel{}
	_ botgw.Starter         = webhookChannel{}
	_ botgw.Typer           = webhookChannel{}
	_ botgw.Channel         = pollingChannel{}
	_ botgw.Listener        = pollingChannel{}
	_ botgw.Starter         = pollingChannel{}
	_ botgw.Typer           = pollingChannel{}
)

const publicAPI = "https://api.telegram.org"

// apiTimeout bounds one Bot API call (the library's own default).
const apiTimeout = time.Minute

// New builds the channel for cfg without any network call; p paces its
// sends (per chat, per group, per bot, shared by every replica). publicURL is the
// gateway's top-level public_url: in webhook mode Start registers
// publicURL+"/webhooks/telegram" with Telegram. The result is a
// botgw.WebhookReceiver in webhook mode and a botgw.Listener in polling mode;
// both are also botgw.Starter and botgw.Typer.
func New(cfg Config, publicURL string, p *ratelimit.Limiter, log *slog.Logger) (botgw.Channel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errors.New("telegram: a pacer is required")
	}
	if log == nil {
		log = slog.Default()
	}
	a := &adapter{
		cfg:       cfg,
		publicURL: strings.TrimRight(publicURL, "/"),
		log:       log.With("channel", Name),
		pacer:     p,
		apiURL:    publicAPI,
		poll:      httpclient.New(nil),
		api:       channels.HTTPClient(apiTimeout),
		files:     channels.HTTPClient(apiTimeout),
		pollWait:  30 * time.Second,
		sleep:     channels.Sleep,
	}
	if cfg.APIURL != "" {
		a.apiURL = strings.TrimRight(cfg.APIURL, "/")
	}
	b, err := bot.New(cfg.Token, bot.WithSkipGetMe(), bot.WithServerURL(a.apiURL),
		bot.WithHTTPClient(apiTimeout, a.api),
		bot.WithErrorsHandler(func(err error) { a.log.Error("telegram library", "err", err) }))
	if err != nil {
		return nil, fmt.Errorf("telegram bot: %w", err)
	}
	a.bot, a.botID = b, b.ID()
	if cfg.mode() == ModePolling {
		return pollingChannel{a}, nil
	}
	return webhookChannel{a}, nil
}

// Name returns "telegram".
func (a *adapter) Name() string { return Name }
