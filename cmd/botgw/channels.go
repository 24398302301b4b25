package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/pace"
	"github.com/botgw/botgw/channels/slack"
	"github.com/botgw/botgw/channels/telegram"
	"github.com/botgw/botgw/channels/web"
	"github.com/botgw/botgw/state"
)

type (
	telegramConfig = telegram.Config
	slackConfig    = slack.Config
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

// buildChannels builds one adapter per configured section: one explicit if
// each, no registry.
func buildChannels(ctx context.Context, cfg Config, st *state.Store, log *slog.Logger) (builtChannels, error) {
	var b builtChannels
	c := cfg.Channels
	pacer := pace.New(st.Client(), st.KeyPrefix(), log)
	if c.Telegram != nil {
		ch, err := telegram.New(*c.Telegram, cfg.PublicURL, pacer, log.With("channel", "telegram"))
		if err != nil {
			return b, fmt.Errorf("channels.telegram: %w", err)
		}
		b.all = append(b.all, ch)
	}
	if c.Slack != nil {
		ch, err := slack.New(*c.Slack, pacer, log.With("channel", "slack"))
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
	if c.Web != nil {
		b.web = web.New(*c.Web, log.With("channel", "web"))
		b.all = append(b.all, b.web)
	}
	return b, nil
}
