// Package whatsappcloud is the WhatsApp Business Cloud API channel
// (channels.whatsapp_cloud): Meta's sanctioned API for business numbers,
// beside the linked-device channel (channels/whatsapp). It receives
// messages and statuses on POST /webhooks/whatsapp_cloud, checked by
// X-Hub-Signature-256 before the body is read, answers Meta's subscription
// handshake on GET, and sends over the Graph API's JSON with net/http,
// paced per number by limits shared by every replica (state/ratelimit).
// Outside WhatsApp's 24-hour customer-service window a proactive message
// goes as the configured template (docs/whatsapp-cloud.md).
//
// Chat keys are "whatsapp_cloud:<wa_id>" (the player's number, digits only).
package whatsappcloud

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels"
	"github.com/botgw/botgw/state/ratelimit"
)

// Name is the channel name: the prefix of chat keys and the config key.
const Name = "whatsapp_cloud"

// apiTimeout bounds one Graph API call, its answer's body included.
const apiTimeout = 30 * time.Second

// Adapter is the channel. Safe for concurrent use.
type Adapter struct {
	channels.Ignored // counts input read and not passed on

	cfg      Config
	apiURL   string
	rdb      redis.UniversalClient
	prefix   string // Redis key prefix of the gateway's store
	pacer    *ratelimit.Limiter
	log      *slog.Logger
	api      *http.Client
	progress channels.Progress
	expired  atomic.Bool // the Graph API answered 190: the token expired
	counts   counts
	now      func() time.Time
}

var (
	_ botgw.Channel         = (*Adapter)(nil)
	_ botgw.WebhookReceiver = (*Adapter)(nil)
	_ botgw.Typer           = (*Adapter)(nil)
	_ botgw.Health          = (*Adapter)(nil)
	_ botgw.MediaFetcher    = (*Adapter)(nil)
)

// New builds the channel for cfg without any network call. rdb and prefix
// are the gateway store's client and key prefix: the channel keeps each
// chat's window and the messages it sent there; p paces its sends.
func New(cfg Config, rdb redis.UniversalClient, prefix string, p *ratelimit.Limiter, log *slog.Logger) (*Adapter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rdb == nil || p == nil {
		return nil, errors.New("whatsapp_cloud: a Redis client and a pacer are required")
	}
	if log == nil {
		log = slog.Default()
	}
	return &Adapter{
		cfg:    cfg,
		apiURL: strings.TrimRight(cfg.apiURL(), "/"),
		rdb:    rdb,
		prefix: prefix,
		pacer:  p,
		log:    log.With("channel", Name),
		api:    channels.HTTPClient(apiTimeout),
		now:    time.Now,
	}, nil
}

// Name returns "whatsapp_cloud".
func (a *Adapter) Name() string { return Name }

// Health fails while the access token is expired (the Graph API answered
// code 190): replies wait in the outbox until a new token is configured.
func (a *Adapter) Health() error {
	if a.expired.Load() {
		return errors.New("the Graph API refused the access token (code 190, expired or revoked): configure a new channels.whatsapp_cloud.access_token and reload")
	}
	return nil
}

// chatKey is the chat of the player with WhatsApp id waID.
func chatKey(waID string) botgw.ChatKey { return botgw.ChatKey{Channel: Name, ID: waID} }

// recipient reads the wa_id back from a chat key.
func recipient(k botgw.ChatKey) (string, error) {
	if k.Channel != Name || !digits.MatchString(k.ID) {
		return "", fmt.Errorf("chat key %s: not a whatsapp_cloud chat", k)
	}
	return k.ID, nil
}
