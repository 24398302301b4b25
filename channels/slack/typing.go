package slack

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/botgw/botgw"
	"github.com/slack-go/slack"
)

// reactionTimeout bounds one reactions.add or reactions.remove call.
const reactionTimeout = 10 * time.Second

// StartTyping shows that a reply is being written by adding the configured
// reaction (default :hourglass_flowing_sand:) to the message being answered,
// and removes it when stop is called or ctx ends. A reaction works with a
// plain bot token (scope reactions:write) in DMs, channels and threads alike;
// assistant.threads.setStatus only works in the assistant threads of apps
// with Slack's AI-app feature turned on. It never blocks: the calls run in a
// goroutine, and a failure only loses the signal.
func (a *adapter) StartTyping(ctx context.Context, in botgw.Inbound) (stop func()) {
	to, ok := a.target(in.Chat)
	if !ok || in.ID == "" || a.cfg.ThinkingReaction == "" {
		return func() {}
	}
	item := slack.NewRefToMessage(to.channel, in.ID)
	done := make(chan struct{})
	go a.react(ctx, to, item, done)
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}

// react adds the reaction, waits for done or ctx, and removes it again.
func (a *adapter) react(ctx context.Context, to dest, item slack.ItemRef, done <-chan struct{}) {
	log := a.log.With("chat", to.chat, "ts", item.Timestamp)
	addCtx, cancel := context.WithTimeout(ctx, reactionTimeout)
	_, api, err := a.chatAPI(addCtx, to.chat)
	if err == nil {
		err = api.AddReactionContext(addCtx, a.cfg.ThinkingReaction, item)
	}
	cancel()
	if err != nil && !isSlackError(err, "already_reacted") {
		log.Warn("slack thinking reaction not added", "err", err)
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
	rmCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reactionTimeout)
	defer cancel()
	err = api.RemoveReactionContext(rmCtx, a.cfg.ThinkingReaction, item)
	if err != nil && !isSlackError(err, "no_reaction") {
		log.Warn("slack thinking reaction not removed", "err", err)
	}
}

// isSlackError reports whether err is the Web API error code.
func isSlackError(err error, code string) bool {
	se, ok := errors.AsType[slack.SlackErrorResponse](err)
	return ok && se.Err == code
}
