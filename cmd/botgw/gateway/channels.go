package gateway

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/slack"
	"github.com/botgw/botgw/channels/telegram"
	"github.com/botgw/botgw/channels/web"
	"github.com/botgw/botgw/channels/whatsappcloud"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/state/ratelimit"
)

type (
	telegramConfig      = telegram.Config
	slackConfig         = slack.Config
	whatsappCloudConfig = whatsappcloud.Config
)

// builtChannels are the configured adapters; web is kept apart because its
// routes (/ and /v1/chat) are not under /webhooks.
type builtChannels struct {
	all []botgw.Channel
	web *web.Adapter
}

func (b builtChannels) byName() map[string]botgw.Channel {
	m := make(map[string]botgw.Channel, len(b.all))
	for _, ch := range b.all {
		m[ch.Name()] = ch
	}
	return m
}

// close closes every channel that holds resources (the WhatsApp device
// store), logging what fails.
func (b builtChannels) close(log *slog.Logger) {
	for _, ch := range b.all {
		if c, ok := ch.(io.Closer); ok {
			if err := c.Close(); err != nil {
				log.Warn("close channel", "channel", ch.Name(), "err", err)
			}
		}
	}
}

// buildChannels builds one adapter per configured section: one explicit if
// each, no registry. On an error it closes what it built.
func buildChannels(ctx context.Context, cfg Config, st *state.Store, log *slog.Logger) (b builtChannels, err error) {
	defer func() {
		if err != nil {
			b.close(log)
			b = builtChannels{}
		}
	}()
	c := cfg.Channels
	pacer := ratelimit.New(st.Client(), ratelimit.Sends(st.KeyPrefix()), log)
	if c.Telegram != nil {
		ch, err := telegram.New(*c.Telegram, cfg.PublicURL, pacer, log.With("channel", "telegram"))
		if err != nil {
			return b, fmt.Errorf("channels.telegram: %w", err)
		}
		b.all = append(b.all, ch)
	}
	if c.Slack != nil {
		env := slack.Env{Pacer: pacer, Redis: st.Client(), KeyPrefix: st.KeyPrefix(), PublicURL: cfg.PublicURL}
		ch, err := slack.New(*c.Slack, env, log.With("channel", "slack"))
		if err != nil {
			return b, fmt.Errorf("channels.slack: %w", err)
		}
		b.all = append(b.all, ch)
	}
	if c.WhatsApp != nil {
		ch, err := buildWhatsApp(ctx, c.WhatsApp, cfg.Admin.Operators["whatsapp"], st, pacer, log.With("channel", "whatsapp"))
		if err != nil {
			return b, fmt.Errorf("channels.whatsapp: %w", err)
		}
		b.all = append(b.all, ch)
	}
	if c.WhatsAppCloud != nil {
		ch, err := whatsappcloud.New(*c.WhatsAppCloud, st.Client(), st.KeyPrefix(), pacer, log.With("channel", whatsappcloud.Name))
		if err != nil {
			return b, fmt.Errorf("channels.whatsapp_cloud: %w", err)
		}
		b.all = append(b.all, ch)
	}
	if c.Web != nil {
		site := web.Site{Loopback: web.Loopback(cfg.Listen), PublicURL: cfg.PublicURL, Listen: cfg.Listen}
		b.web = web.New(*c.Web, site, log.With("channel", "web"))
		b.all = append(b.all, b.web)
	}
	return b, nil
}

// WebOff says why a configured web chat stays off: on a listen address
// other machines reach, with neither allowed_origins nor a token, anyone
// could spend the model's tokens through it. Empty: it may run.
func WebOff(cfg Config) string {
	w := cfg.Channels.Web
	if w == nil || web.Loopback(cfg.Listen) || !w.Open() {
		return ""
	}
	return fmt.Sprintf("web chat off: listen %s is not loopback and channels.web sets neither allowed_origins "+
		"nor token, so anyone reaching the port could use it; set one of them to serve it (docs/channels.md, \"Web chat security\")", cfg.Listen)
}
