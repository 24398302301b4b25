package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/botgw/botgw"
)

const maxPollBackoff = 30 * time.Second

// Listen runs the bot's one getUpdates poller until ctx ends. Telegram
// allows one poller per token (a second gets 409 Conflict), so polling mode
// cannot run on several replicas; use webhook mode there. An update is
// confirmed to Telegram (the offset moves past it) only after deliver
// stored it; if deliver fails, the same update is tried again.
func (c pollingChannel) Listen(ctx context.Context, deliver botgw.Deliver) error {
	c.clearWebhook(ctx)
	var offset int64
	backoff := time.Duration(0)
	for {
		next, err := c.pollOnce(ctx, offset, deliver)
		offset = next
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			backoff = min(max(2*backoff, time.Second), maxPollBackoff)
			c.healthErr.Store(&err)
			c.log.Error("telegram polling", "err", err, "retry_in", backoff)
			_ = c.sleep(ctx, backoff)
		default:
			backoff = 0
			c.healthErr.Store(nil)
		}
	}
}

// pollOnce fetches the updates after offset and delivers them in order. It
// returns the offset to poll next: past the last update delivered.
func (c pollingChannel) pollOnce(ctx context.Context, offset int64, deliver botgw.Deliver) (int64, error) {
	updates, err := c.getUpdates(ctx, offset)
	if err != nil {
		return offset, err
	}
	for _, u := range updates {
		in, ok := c.normalize(&u)
		if !ok {
			c.Ignore()
		} else if err := deliver(ctx, in); err != nil {
			return offset, fmt.Errorf("deliver telegram update %d to %s: %w", u.ID, in.Chat, err)
		}
		if u.CallbackQuery != nil {
			c.answerTap(u.CallbackQuery)
		}
		offset = u.ID + 1
	}
	return offset, nil
}

// clearWebhook removes any webhook, which would make getUpdates fail with
// 409 Conflict. Failures are logged; polling then reports them itself.
func (c pollingChannel) clearWebhook(ctx context.Context) {
	if _, err := c.bot.DeleteWebhook(ctx, &bot.DeleteWebhookParams{}); err != nil {
		c.log.Error("telegram deleteWebhook", "err", err)
	}
}

// getUpdates is the Bot API's long poll. The library's own poller confirms
// updates before they are handled, so the gateway calls the method itself.
func (c pollingChannel) getUpdates(ctx context.Context, offset int64) ([]models.Update, error) {
	body, _ := json.Marshal(map[string]any{
		"offset": offset, "timeout": int(c.pollWait.Seconds()), "allowed_updates": allowedUpdates,
	})
	ctx, cancel := context.WithTimeout(ctx, c.pollWait+10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.apiURL+"/bot"+c.cfg.Token+"/getUpdates", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("telegram getUpdates request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.poll.Do(req)
	if err != nil {
		return nil, fmt.Errorf("telegram getUpdates: %w", redactToken(err, c.cfg.Token))
	}
	defer resp.Body.Close()
	var r struct {
		OK          bool            `json:"ok"`
		Result      []models.Update `json:"result"`
		ErrorCode   int             `json:"error_code"`
		Description string          `json:"description"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, fmt.Errorf("telegram getUpdates: HTTP %d: undecodable answer: %w", resp.StatusCode, err)
	}
	if !r.OK {
		return nil, fmt.Errorf("telegram getUpdates: %d %s", r.ErrorCode, r.Description)
	}
	return r.Result, nil
}

// Health reports the last polling failure until a poll succeeds again.
func (c pollingChannel) Health() error {
	if p := c.healthErr.Load(); p != nil {
		return *p
	}
	return nil
}

var _ botgw.Health = pollingChannel{}

// redactToken hides the bot token in the URL of a transport error.
func redactToken(err error, token string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = strings.ReplaceAll(ue.URL, token, "***")
	}
	return err
}
