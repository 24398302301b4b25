package slack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/botgw/botgw/state/ratelimit"
)

// channelBurst is how many messages may go to one channel at once (Slack
// allows short bursts over its 1 a second per channel).
const channelBurst = 3

// defaultChannelRate is Slack's chat.postMessage limit: 1 a second per channel.
const defaultChannelRate = 1.0

// scope names one Slack channel of this app: by its team with installs,
// else by a hash of the bot token (two workspaces apart without putting the
// token in Redis).
func (a *adapter) scope(to dest) string {
	if to.team != "" {
		return "slack:" + to.team + ":" + to.channel
	}
	h := sha256.Sum256([]byte(a.cfg.BotToken))
	return "slack:" + hex.EncodeToString(h[:6]) + ":" + to.channel
}

// paced waits for the channel's slot and out any hold of the channel.
func (a *adapter) paced(ctx context.Context, to dest) error {
	rate := a.cfg.RatePerChannelPerSecond
	if rate == 0 {
		rate = defaultChannelRate
	}
	s := a.scope(to)
	if err := a.pacer.Wait(ctx, []string{s}, ratelimit.Rule{Key: s, Limit: ratelimit.PerSecond(rate, channelBurst)}); err != nil {
		return fmt.Errorf("wait for the send limit: %w", err)
	}
	return nil
}

// hold holds the channel back on every replica for Slack's Retry-After.
func (a *adapter) hold(ctx context.Context, to dest, d time.Duration) {
	if err := a.pacer.Hold(ctx, a.scope(to), d); err != nil {
		a.log.Warn("could not share the rate limit hold", "err", err)
	}
}
