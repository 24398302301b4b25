package telegram

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/markup"
)

const (
	// maxAttempts bounds the tries of one message answered 429.
	maxAttempts = 4
	// maxRetryWait is the longest retry_after Send waits for; past it the
	// reply goes back to the engine's outbox with the platform's RetryAfter.
	maxRetryWait = 30 * time.Second
)

// target is where a reply goes: a chat, its forum topic, and the message it
// answers in a group.
type target struct {
	key     botgw.ChatKey
	chat    int64
	thread  int
	replyTo int
	pace    *botgw.SendPace // the chat's own send pace (Outbound.Pace)
}

// parseTarget reads a chat key back: "<chat id>" or "<chat id>/<thread id>";
// group and channel ids are negative.
func parseTarget(k botgw.ChatKey) (target, error) {
	chat, thread, hasThread := strings.Cut(k.ID, "/")
	t := target{key: k}
	var err error
	if t.chat, err = strconv.ParseInt(chat, 10, 64); err != nil || k.Channel != Name {
		return target{}, fmt.Errorf("chat key %s: not a telegram chat", k)
	}
	if hasThread {
		if t.thread, err = strconv.Atoi(thread); err != nil || t.thread <= 0 {
			return target{}, fmt.Errorf("chat key %s: bad topic id", k)
		}
	}
	return t, nil
}

// Send delivers m as one or more messages in order: Markdown converted to
// Telegram HTML, split to Telegram's limit, paced per chat. In groups the
// first message replies to the message that started the turn. Failures are
// *botgw.PlatformError saying how many parts Telegram took; when the engine
// retries m, those parts are not sent again (m.Sent, recorded in the
// outbox, or this process's memory of them).
func (a *adapter) Send(ctx context.Context, m botgw.Outbound) error {
	t, err := parseTarget(m.Chat)
	if err != nil {
		return &botgw.PlatformError{Channel: Name, Permanent: true, Err: err}
	}
	t.pace = m.Pace
	chunks := parts(markup.Telegram.Render(m.Text), m.Offer, t)
	start := max(a.progress.Sent(m.ID), m.Sent)
	if start == 0 && m.Meta[metaChatType] != string(models.ChatTypePrivate) {
		t.replyTo, _ = strconv.Atoi(m.Meta[metaMessageID])
	}
	for i := start; i < len(chunks); i++ {
		if err := a.sendChunk(ctx, t, chunks[i]); err != nil {
			a.progress.Record(m.ID, i)
			pe := platformError(fmt.Errorf("part %d of %d to %s: %w", i+1, len(chunks), m.Chat, err))
			pe.Sent = i
			return pe
		}
		t.replyTo = 0
	}
	a.progress.Record(m.ID, 0)
	return nil
}

// sendChunk sends one part as HTML, or as its plain text if Telegram
// cannot parse the HTML's entities, with its keyboard either way.
func (a *adapter) sendChunk(ctx context.Context, t target, p part) error {
	err := a.sendMessage(ctx, t, t.params(p.html, models.ParseModeHTML, p.markup))
	if isEntityError(err) {
		a.log.Warn("telegram rejected the HTML of a reply part: resending it as plain text", "chat", t.key, "err", err)
		err = a.sendMessage(ctx, t, t.params(markup.TelegramText(p.html), "", p.markup))
	}
	return err
}

func (t target) params(text string, mode models.ParseMode, replyMarkup any) *bot.SendMessageParams {
	p := &bot.SendMessageParams{ChatID: t.chat, MessageThreadID: t.thread, Text: text, ParseMode: mode}
	if replyMarkup != nil {
		p.ReplyMarkup = replyMarkup
	}
	if t.replyTo != 0 {
		p.ReplyParameters = &models.ReplyParameters{MessageID: t.replyTo, AllowSendingWithoutReply: true}
	}
	return p
}

// sendMessage sends one message once the send limits allow it. A 429
// holds the whole bot back for its retry_after on every replica; the
// message is then tried again a few times.
func (a *adapter) sendMessage(ctx context.Context, t target, p *bot.SendMessageParams) error {
	for attempt := 1; ; attempt++ {
		if err := a.paced(ctx, t); err != nil {
			return err
		}
		a.sends.note(t, time.Now()) // it ends the chat's "typing" (firstSignal)
		_, err := a.bot.SendMessage(ctx, p)
		var tmr *bot.TooManyRequestsError
		if !errors.As(err, &tmr) {
			return err
		}
		wait := time.Duration(tmr.RetryAfter) * time.Second
		a.log.Warn("telegram rate limit: holding the bot back", "chat", t.key, "retry_after", wait)
		a.hold(ctx, wait)
		if attempt == maxAttempts || wait > maxRetryWait {
			return err
		}
	}
}

func isEntityError(err error) bool {
	return errors.Is(err, bot.ErrorBadRequest) && strings.Contains(err.Error(), "can't parse entities")
}

// platformError translates the library's errors; retrying cannot help
// after 400 (bad chat or topic, group migrated), 401, 403 (bot blocked or
// removed) and 404.
func platformError(err error) *botgw.PlatformError {
	pe := &botgw.PlatformError{Channel: Name, Err: err}
	var tmr *bot.TooManyRequestsError
	var mig *bot.MigrateError
	switch {
	case errors.As(err, &tmr):
		pe.Status, pe.RetryAfter = 429, time.Duration(tmr.RetryAfter)*time.Second
	case errors.As(err, &mig), errors.Is(err, bot.ErrorBadRequest):
		pe.Status, pe.Permanent = 400, true
	case errors.Is(err, bot.ErrorUnauthorized):
		pe.Status, pe.Permanent = 401, true
	case errors.Is(err, bot.ErrorForbidden):
		pe.Status, pe.Permanent = 403, true
	case errors.Is(err, bot.ErrorNotFound):
		pe.Status, pe.Permanent = 404, true
	}
	return pe
}
