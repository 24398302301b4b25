package whatsapp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/ratelimit"
	"github.com/botgw/botgw/state/ratelimit/ratelimittest"
)

func testPacer(t testing.TB) *ratelimit.Limiter {
	p, _ := ratelimittest.New(t)
	return p
}

// clockHook sets the embedded Redis' clock to the caller's time before each
// command, so the GCRA (which reads Redis TIME) runs on synctest's fake clock.
type clockHook struct{ m *miniredis.Miniredis }

func (h clockHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h clockHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.m.SetTime(time.Now())
		return next(ctx, cmd)
	}
}

func (h clockHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.m.SetTime(time.Now())
		return next(ctx, cmds)
	}
}

// timedClient records when each message left the adapter and when each chat
// was shown "composing…".
type timedClient struct {
	*fakeClient
	mu        sync.Mutex
	sends     []time.Time
	composing map[types.JID]time.Time
	typedFor  []time.Duration // per send: how long "composing…" was shown before it
}

func (c *timedClient) SendChatPresence(ctx context.Context, to types.JID, s types.ChatPresence, m types.ChatPresenceMedia) error {
	c.mu.Lock()
	if s == types.ChatPresenceComposing {
		c.composing[to] = time.Now()
	}
	c.mu.Unlock()
	return c.fakeClient.SendChatPresence(ctx, to, s, m)
}

func (c *timedClient) SendMessage(ctx context.Context, to types.JID, m *waE2E.Message, extra ...whatsmeow.SendRequestExtra) (whatsmeow.SendResponse, error) {
	c.mu.Lock()
	now := time.Now()
	c.sends = append(c.sends, now)
	if at, ok := c.composing[to]; ok {
		c.typedFor = append(c.typedFor, now.Sub(at))
	} else {
		c.typedFor = append(c.typedFor, 0)
	}
	c.mu.Unlock()
	return c.fakeClient.SendMessage(ctx, to, m, extra...)
}

// With rate_per_minute: 6, ten replies to ten chats sent at once leave the
// adapter at most 6 in any minute (one every 10 s), each after a typing
// pause by its length. Time is synctest's fake clock; the GCRA runs in the
// embedded Redis on that clock.
func TestSendsArePacedPerNumberWithTypingPauses(t *testing.T) {
	m := miniredis.RunT(t)
	synctest.Test(t, func(t *testing.T) {
		rdb := redis.NewClient(&redis.Options{Addr: m.Addr()})
		rdb.AddHook(clockHook{m})
		defer rdb.Close()
		cli := &timedClient{fakeClient: newFakeClient(), composing: map[types.JID]time.Time{}}
		a, _ := testAdapter(Config{Store: "sqlite://x.db", RatePerMinute: 6, TypingDelay: "1s..8s"}, nil, nil)
		a.pacer = ratelimit.New(rdb, ratelimit.Sends("test"), nil)
		a.setCurrent(cli)
		texts := make([]string, 10)
		var wg sync.WaitGroup
		for i := range texts {
			texts[i] = strings.Repeat("x", 10+i*20) // 0.5 s to 9.5 s of typing at 20 chars/s
			chat := botgw.ChatKey{Channel: Name, ID: fmt.Sprintf("4477009001%02d@s.whatsapp.net", i)}
			wg.Go(func() {
				if err := a.Send(t.Context(), botgw.Outbound{Chat: chat, ID: fmt.Sprint("r", i), Text: texts[i]}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		cli.mu.Lock()
		defer cli.mu.Unlock()
		if len(cli.sends) != 10 {
			t.Fatalf("%d messages sent, want 10", len(cli.sends))
		}
		for i := 6; i < len(cli.sends); i++ {
			if window := cli.sends[i].Sub(cli.sends[i-6]); window < time.Minute {
				t.Errorf("7 messages within %v, want at most 6 a minute", window)
			}
		}
		for i, d := range cli.typedFor {
			if d < time.Second {
				t.Errorf("message %d sent after %v of \"composing…\", want the typing pause (≥ 1s)", i, d)
			}
		}
	})
}
