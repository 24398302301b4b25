package metrics

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

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
