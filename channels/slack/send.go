package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/markup"
	"github.com/slack-go/slack"
)

const (
	// rateRetries bounds how often one part waits out a rate limit.
	rateRetries = 3
	// maxRetryAfter caps one wait; a longer limit goes back to the engine.
	maxRetryAfter = time.Minute
)

// Send posts m as mrkdwn into its chat's channel and thread, split into parts
// of at most 4,000 characters (markup.Slack), in order. If a part fails, a
// later Send of the same reply (same ID) resumes after the parts already
// posted (m.Sent, as recorded in the outbox from the error's Sent, or this
// process's memory).
func (a *adapter) Send(ctx context.Context, m botgw.Outbound) error {
	to, api, err := a.chatAPI(ctx, m.Chat)
	if err != nil {
		return err
	}
	parts := layout(markup.Slack.Render(m.Text), m.Offer)
	for i := max(a.sent.Sent(m.ID), m.Sent); i < len(parts); i++ {
		if err := a.post(ctx, api, to, parts[i]); err != nil {
			if a.revoked(ctx, to.team, err) {
				return uninstalledError(m.Chat)
			}
			pe := platformError(fmt.Errorf("post part %d of %d to %s: %w", i+1, len(parts), m.Chat, err))
			pe.Sent = i
			return pe
		}
		a.sent.Record(m.ID, (i+1)%len(parts)) // all taken: forget
	}
	return nil
}

// post sends one part with chat.postMessage once the channel's send limit
// allows it. A 429 holds the channel back for its Retry-After on every
// replica; the part is then tried again a few times.
func (a *adapter) post(ctx context.Context, api *slack.Client, to dest, p post) error {
	opts := []slack.MsgOption{slack.MsgOptionText(p.text, false)}
	if len(p.blocks) > 0 {
		opts = append(opts, slack.MsgOptionBlocks(p.blocks...))
	}
	if to.thread != "" {
		opts = append(opts, slack.MsgOptionTS(to.thread))
	}
	for attempt := 0; ; attempt++ {
		if err := a.paced(ctx, to); err != nil {
			return err
		}
		_, _, err := api.PostMessageContext(ctx, to.channel, opts...)
		rl, limited := errors.AsType[*slack.RateLimitedError](err)
		if !limited {
			return err
		}
		a.log.Info("slack rate limit: holding the channel back", "chat", to.chat, "retry_after", rl.RetryAfter)
		a.hold(ctx, to, rl.RetryAfter)
		if attempt == rateRetries || rl.RetryAfter > maxRetryAfter {
			return err
		}
	}
}

// permanentCodes are Web API error codes that no retry can fix.
var permanentCodes = []string{
	"channel_not_found", "not_in_channel", "is_archived", "msg_too_long",
	"no_text", "invalid_auth", "not_authed", "account_inactive", "token_revoked",
	"token_expired", "missing_scope", "restricted_action", "cannot_reply_to_message",
	"invalid_thread_ts", "thread_not_found", "team_access_not_granted",
}

// platformError translates a slack-go error into a *botgw.PlatformError.
func platformError(err error) *botgw.PlatformError {
	pe := &botgw.PlatformError{Channel: name, Err: err}
	if rl, ok := errors.AsType[*slack.RateLimitedError](err); ok {
		pe.Status, pe.RetryAfter = http.StatusTooManyRequests, rl.RetryAfter
	}
	if se, ok := errors.AsType[slack.SlackErrorResponse](err); ok {
		pe.Status, pe.Permanent = http.StatusOK, slices.Contains(permanentCodes, se.Err)
	}
	if sc, ok := errors.AsType[slack.StatusCodeError](err); ok {
		pe.Status = sc.Code
		pe.Permanent = sc.Code >= 400 && sc.Code < 500 &&
			sc.Code != http.StatusRequestTimeout && sc.Code != http.StatusTooManyRequests
	}
	return pe
}
