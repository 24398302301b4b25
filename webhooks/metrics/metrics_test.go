package metrics

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw/convo"
)

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

func wantLines(t *testing.T, body string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(body, l+"\n") {
			t.Errorf("metrics lack %q", l)
		}
	}
}

func TestRedisHookCountsFailuresButNotMissingKeys(t *testing.T) {
	srv := miniredis.RunT(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	m := New()
	c.AddHook(m.RedisHook())
	ctx := context.Background()
	c.Set(ctx, "s", "text", 0)
	c.Get(ctx, "missing")
	c.Incr(ctx, "s") // WRONGTYPE-like: not an integer
	p := c.Pipeline()
	p.Incr(ctx, "s")
	p.Get(ctx, "s")
	p.Exec(ctx)
	wantLines(t, scrape(t, m), `botgw_redis_errors_total{command="incr"} 2`)
	if strings.Contains(scrape(t, m), `command="get"`) {
		t.Error("a missing key was counted as a Redis error")
	}
}

type health struct{ err error }

func (h *health) Health() error { return h.err }

func TestChannelUpFollowsHealth(t *testing.T) {
	m := New()
	h := &health{}
	m.WatchChannel("whatsapp", h)
	wantLines(t, scrape(t, m), `botgw_channel_up{channel="whatsapp"} 1`)
	h.err = errors.New("logged out")
	wantLines(t, scrape(t, m), `botgw_channel_up{channel="whatsapp"} 0`)
}

func TestTurnHookSplitsOutcomesAndProviderStatus(t *testing.T) {
	m := New()
	hooks := m.Hooks()
	hooks.Turn(convo.TurnStats{Channel: "telegram", Outcome: "provider_error", ProviderStatus: 429})
	hooks.Turn(convo.TurnStats{Channel: "telegram", Outcome: "ok", Compacted: true, StateSize: 900})
	hooks.Dropped("provider_changed")
	hooks.Lease("telegram", 1)
	wantLines(t, scrape(t, m),
		`botgw_turns_total{channel="telegram",outcome="provider_error"} 1`,
		`botgw_provider_errors_total{status="429"} 1`,
		`botgw_compactions_total 1`,
		`botgw_state_bytes_bucket{le="1024"} 1`,
		`botgw_state_dropped_total{reason="provider_changed"} 1`,
		`botgw_leases_held{channel="telegram"} 1`)
}

func TestInboundCountsIgnoredAndRejectedInput(t *testing.T) {
	m := New()
	m.Ignored("telegram")()
	m.Ignored("telegram")()
	m.ObserveHTTP("/webhooks/slack", 401, time.Millisecond)
	m.ObserveHTTP("/webhooks/telegram", 400, time.Millisecond)
	m.ObserveHTTP("/webhooks/telegram", 200, time.Millisecond)
	m.ObserveHTTP("/v1/admin/chats", 401, time.Millisecond) // not inbound
	body := scrape(t, m)
	wantLines(t, body,
		`botgw_inbound_total{channel="telegram",outcome="ignored"} 2`,
		`botgw_inbound_total{channel="slack",outcome="rejected"} 1`,
		`botgw_inbound_total{channel="telegram",outcome="rejected"} 1`)
	if strings.Contains(body, `channel="v1`) {
		t.Error("an admin route was counted as inbound input")
	}
}

func TestProviderAttemptsCountRetries(t *testing.T) {
	m := New()
	observe := m.ProviderAttempts("openai/gpt-4o-mini")
	observe(429, false)
	observe(0, true) // a timed-out retry
	observe(200, true)
	wantLines(t, scrape(t, m),
		`botgw_provider_requests_total{provider="openai/gpt-4o-mini",status="429"} 1`,
		`botgw_provider_requests_total{provider="openai/gpt-4o-mini",status="0"} 1`,
		`botgw_provider_requests_total{provider="openai/gpt-4o-mini",status="200"} 1`,
		`botgw_provider_retries_total{provider="openai/gpt-4o-mini"} 2`)
}

func TestBacklogIsReadAtScrape(t *testing.T) {
	m := New()
	due, fail := 0, false
	m.WatchBacklog(func(context.Context) (int, time.Duration, error) {
		if fail {
			return 0, 0, errors.New("redis down")
		}
		return due, time.Duration(due) * 1500 * time.Millisecond, nil
	})
	wantLines(t, scrape(t, m), `botgw_work_due_chats 0`, `botgw_work_overdue_seconds 0`)
	due = 3
	wantLines(t, scrape(t, m), `botgw_work_due_chats 3`, `botgw_work_overdue_seconds 4.5`)
	fail = true
	if body := scrape(t, m); strings.Contains(body, "botgw_work_due_chats ") {
		t.Error("a failed read still exported a (stale) backlog")
	}
}

func TestChannelEventsAreExported(t *testing.T) {
	m := New()
	n := uint64(0)
	m.WatchEvents("whatsapp", func() map[string]uint64 { return map[string]uint64{"undecryptable": n} })
	n = 3
	wantLines(t, scrape(t, m), `botgw_channel_events_total{channel="whatsapp",event="undecryptable"} 3`)
}
