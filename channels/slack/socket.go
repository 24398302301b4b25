package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// Backoff between Socket Mode reconnection rounds.
const (
	minBackoff = time.Second
	maxBackoff = time.Minute
)

// socketChannel receives over Socket Mode.
type socketChannel struct{ *adapter }

// Listen opens a Socket Mode connection and hands each message to deliver,
// acknowledging an event only after deliver stored it (an unacknowledged
// event is redelivered by Slack). It reconnects until ctx ends, then
// returns nil.
func (c *socketChannel) Listen(ctx context.Context, deliver botgw.Deliver) error {
	client := socketmode.New(c.api, socketmode.OptionLog(slog.NewLogLogger(c.log.Handler(), slog.LevelDebug)))
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		c.run(ctx, client)
	}()
	for {
		select {
		case <-ctx.Done():
			<-stopped
			return nil
		case evt := <-client.Events:
			c.handle(ctx, client, evt, deliver)
		}
	}
}

// run keeps the connection up: slack-go's RunContext reconnects by itself
// and returns only when a reconnection failed.
func (c *socketChannel) run(ctx context.Context, client *socketmode.Client) {
	backoff := minBackoff
	for ctx.Err() == nil {
		started := time.Now()
		err := client.RunContext(ctx)
		if ctx.Err() != nil {
			return
		}
		c.setHealth(fmt.Errorf("slack socket mode: %w", err))
		c.log.Error("slack socket mode connection lost", "err", err, "retry_in", backoff)
		if time.Since(started) > maxBackoff {
			backoff = minBackoff
		}
		if channels.Sleep(ctx, backoff) != nil {
			return
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// handle reacts to one event of the Socket Mode client.
func (c *socketChannel) handle(ctx context.Context, client *socketmode.Client, evt socketmode.Event, deliver botgw.Deliver) {
	switch evt.Type {
	case socketmode.EventTypeConnected:
		c.setHealth(nil)
		c.log.Info("slack socket mode connected")
	case socketmode.EventTypeConnectionError, socketmode.EventTypeInvalidAuth:
		c.setHealth(fmt.Errorf("slack socket mode: %s", evt.Type))
		c.log.Warn("slack socket mode cannot connect", "event", evt.Type, "err", eventError(evt.Data))
	case socketmode.EventTypeEventsAPI:
		ev, _ := evt.Data.(slackevents.EventsAPIEvent)
		if c.store(ctx, ev, deliver) {
			c.ack(ctx, client, evt.Request.EnvelopeID)
		}
	case socketmode.EventTypeInteractive:
		cb, _ := evt.Data.(slack.InteractionCallback)
		if c.storeTap(ctx, cb, deliver) && evt.Request != nil {
			c.ack(ctx, client, evt.Request.EnvelopeID)
		}
	case socketmode.EventTypeErrorBadMessage:
		// An event this library cannot parse: acknowledge it, or Slack
		// redelivers it forever.
		if bad, ok := evt.Data.(*socketmode.ErrorBadMessage); ok {
			c.log.Debug("slack event ignored", "err", bad.Cause)
			c.ack(ctx, client, envelopeID(bad.Message))
		}
	default:
		if evt.Request != nil && evt.Request.EnvelopeID != "" {
			c.ack(ctx, client, evt.Request.EnvelopeID) // slash commands, interactions
		}
	}
}

func (c *socketChannel) ack(ctx context.Context, client *socketmode.Client, envelope string) {
	if envelope == "" {
		return
	}
	if err := client.AckCtx(ctx, envelope, nil); err != nil {
		c.log.Warn("slack socket mode ack failed", "err", err)
	}
}

// envelopeID reads the envelope id of a raw Socket Mode message.
func envelopeID(raw json.RawMessage) string {
	var req socketmode.Request
	_ = json.Unmarshal(raw, &req)
	return req.EnvelopeID
}

func eventError(data any) error {
	if ce, ok := data.(*slack.ConnectionErrorEvent); ok {
		return ce.ErrorObj
	}
	return nil
}
