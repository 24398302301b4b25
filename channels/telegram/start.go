package telegram

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/botgw/botgw"
)

const (
	startTimeout = 20 * time.Second
	typingEvery  = 4 * time.Second // Telegram shows "typing" for about 5 s
)

// commands are the in-chat commands the engine answers (CONTRACT.md).
var commands = []models.BotCommand{
	{Command: "reset", Description: "Forget this conversation"},
	{Command: "status", Description: "Show turns, stored size and time to expiry"},
	{Command: "help", Description: "List the commands"},
}

// Start learns the bot's username (for mentions in groups), registers the
// commands and, in webhook mode with a public URL, the webhook. Each step
// runs even if another failed; the errors are joined.
func (a *adapter) Start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	return errors.Join(a.learnMe(ctx), a.setCommands(ctx), a.setWebhook(ctx))
}

func (a *adapter) learnMe(ctx context.Context) error {
	me, err := a.bot.GetMe(ctx)
	if err != nil {
		return fmt.Errorf("telegram getMe: %w", err)
	}
	a.username.Store(&me.Username)
	a.log.Info("telegram bot ready", "username", me.Username)
	return nil
}

func (a *adapter) setCommands(ctx context.Context) error {
	if _, err := a.bot.SetMyCommands(ctx, &bot.SetMyCommandsParams{Commands: commands}); err != nil {
		return fmt.Errorf("telegram setMyCommands: %w", err)
	}
	return nil
}

// setWebhook points Telegram at publicURL/webhooks/telegram with the secret.
func (a *adapter) setWebhook(ctx context.Context) error {
	if a.cfg.mode() != ModeWebhook {
		return nil
	}
	if a.publicURL == "" {
		a.log.Warn("public_url is empty: the telegram webhook is not registered; call setWebhook yourself")
		return nil
	}
	_, err := a.bot.SetWebhook(ctx, &bot.SetWebhookParams{
		URL:            a.publicURL + WebhookPath,
		SecretToken:    a.cfg.WebhookSecret,
		AllowedUpdates: allowedUpdates,
	})
	if err != nil {
		return fmt.Errorf("telegram setWebhook: %w", err)
	}
	return nil
}

// allowedUpdates are the update types the gateway asks Telegram for.
var allowedUpdates = []string{"message", "edited_message", "callback_query"}

// StartTyping shows "typing…" in the chat of in, renewed every 4 s, until
// stop is called or ctx ends. stop waits for the renewal goroutine, so no
// typing signal follows the reply.
func (a *adapter) StartTyping(ctx context.Context, in botgw.Inbound) (stop func()) {
	t, err := parseTarget(in.Chat)
	if err != nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.typing(ctx, t)
	}()
	return func() {
		cancel()
		<-done
	}
}

func (a *adapter) typing(ctx context.Context, t target) {
	tick := time.NewTicker(typingEvery)
	defer tick.Stop()
	p := &bot.SendChatActionParams{ChatID: t.chat, MessageThreadID: t.thread, Action: models.ChatActionTyping}
	for {
		if _, err := a.bot.SendChatAction(ctx, p); err != nil && ctx.Err() == nil {
			a.log.Debug("telegram typing", "chat", t.key, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
