package telegram

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

const startTimeout = 20 * time.Second

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
