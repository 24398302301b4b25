package whatsappcloud

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

// Window is WhatsApp's customer-service window: free-form messages may go
// to a player until this long after the player's last message.
const Window = 24 * time.Hour

// windowTTL keeps a chat's last timestamp a little past its window.
const windowTTL = Window + time.Hour

// ErrOutsideWindow is why a proactive message outside the window, with no
// template configured, is not sent (the dead letter's reason).
const ErrOutsideWindow = "outside WhatsApp's 24-hour window"

// lastKey holds the Unix time of the player's last message in chat k, in
// the chat's hash slot: every replica reads the same window.
func (a *Adapter) lastKey(k botgw.ChatKey) string {
	return fmt.Sprintf("%s:{%s}:wa_window", a.prefix, k)
}

// keepLatest sets KEYS[1] to ARGV[1] unless it holds a later time, so a
// message Meta delivers late never shortens the window.
var keepLatest = redis.NewScript(`
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1`)

// noteWindow records that the player of k wrote at at (the message's own
// timestamp).
func (a *Adapter) noteWindow(ctx context.Context, k botgw.ChatKey, at time.Time) error {
	ttl := time.Until(at.Add(windowTTL))
	if ttl <= 0 {
		return nil // already outside the window: nothing to open
	}
	err := keepLatest.Run(ctx, a.rdb, []string{a.lastKey(k)}, at.Unix(), ttl.Milliseconds()).Err()
	if err != nil {
		return fmt.Errorf("note the window of %s: %w", k, err)
	}
	return nil
}

// inWindow reports whether m may go as free-form text. A reply to the
// player's own message is judged by that message's timestamp (Meta); a
// proactive message by the player's last message in the chat.
func (a *Adapter) inWindow(ctx context.Context, m botgw.Outbound) (bool, error) {
	if s, ok := m.Meta[metaSentAt]; ok && !m.Proactive {
		at, err := strconv.ParseInt(s, 10, 64)
		return err == nil && a.now().Sub(time.Unix(at, 0)) < Window, nil
	}
	if !m.Proactive {
		return true, nil // no timestamp to judge by (a reply of an older release)
	}
	v, err := a.rdb.Get(ctx, a.lastKey(m.Chat)).Int64()
	switch {
	case err == redis.Nil:
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read the window of %s: %w", m.Chat, err)
	}
	return a.now().Sub(time.Unix(v, 0)) < Window, nil
}
