package limit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/state/redistest"
)

// model is a provider that records when each call reached it and answers
// with the scripted errors first.
type model struct {
	mu    sync.Mutex
	calls []time.Time
	errs  []error
}

func (m *model) ID() string { return "test/model" }

func (m *model) Complete(ctx context.Context, req botgw.Request) (botgw.Reply, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, time.Now())
	if len(m.errs) > 0 {
		err := m.errs[0]
		m.errs = m.errs[1:]
		return botgw.Reply{}, err
	}
	return botgw.Reply{Text: "ok", Usage: botgw.Usage{OutputTokens: 5}}, nil
}

func (m *model) times() []time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]time.Time(nil), m.calls...)
}

// stores runs f on the embedded Redis and, with BOTGW_TEST_REDIS_URL, on
// real Redis.
func stores(t *testing.T, f func(t *testing.T, rdb redis.UniversalClient, key string)) {
	for _, name := range []string{"embedded", "real"} {
		t.Run(name, func(t *testing.T) {
			cfg := state.Config{}
			if name == "real" {
				cfg.URL = redistest.URL(t)
			}
			st, err := state.Open(context.Background(), cfg, state.Options{}, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			b := make([]byte, 6)
			_, _ = rand.Read(b)
			f(t, st.Client(), "botgwtest-"+hex.EncodeToString(b)+":provider:test/model")
		})
	}
}

func TestRequestsPerMinuteIsSharedByReplicas(t *testing.T) {
	stores(t, func(t *testing.T, rdb redis.UniversalClient, key string) {
		m := &model{}
		cfg := Config{RequestsPerMinute: 60, Key: key} // a burst of 60, then one a second
		var replicas [2]*Provider
		for i := range replicas {
			p, err := New(m, cfg, rdb, nil)
			if err != nil {
				t.Fatal(err)
			}
			replicas[i] = p
		}
		var wg sync.WaitGroup
		for i := range 62 { // 31 each: either alone would let them all through
			wg.Go(func() {
				if _, err := replicas[i%2].Complete(t.Context(), botgw.Request{}); err != nil {
					t.Errorf("call %d: %v (the limit waits, it never refuses)", i, err)
				}
			})
		}
		wg.Wait()
		calls := m.times()
		if span := calls[len(calls)-1].Sub(calls[0]); len(calls) != 62 || span < 1500*time.Millisecond {
			t.Errorf("%d calls within %s; at 60 a minute shared, the 61st and 62nd wait about 1 s and 2 s", len(calls), span)
		}
	})
}

func TestA429HoldsBackEveryReplica(t *testing.T) {
	stores(t, func(t *testing.T, rdb redis.UniversalClient, key string) {
		m := &model{errs: []error{&botgw.ProviderError{Provider: "test/model", Status: 429, RetryAfter: time.Second}}}
		cfg := Config{RequestsPerMinute: 10000, Key: key}
		a, _ := New(m, cfg, rdb, nil)
		b, _ := New(m, cfg, rdb, nil)
		if _, err := a.Complete(t.Context(), botgw.Request{}); err == nil {
			t.Fatal("the 429 was not returned to its caller")
		}
		if _, err := b.Complete(t.Context(), botgw.Request{}); err != nil {
			t.Fatal(err)
		}
		calls := m.times()
		if gap := calls[1].Sub(calls[0]); gap < 800*time.Millisecond {
			t.Errorf("the other replica called the model %s after the 429, want it held back for the Retry-After of 1s", gap)
		}
	})
}

func TestTokensPerMinuteHoldsBackACallOverTheBudget(t *testing.T) {
	stores(t, func(t *testing.T, rdb redis.UniversalClient, key string) {
		m := &model{}
		p, err := New(m, Config{TokensPerMinute: 1000, Key: key}, rdb, nil)
		if err != nil {
			t.Fatal(err)
		}
		long := botgw.Request{Messages: []botgw.Message{{Role: botgw.RoleUser, Text: strings.Repeat("word ", 640)}}} // ~800 tokens
		if _, err := p.Complete(t.Context(), long); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		defer cancel()
		if _, err := p.Complete(ctx, long); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("second call over the minute's 1000 tokens: err %v, want it still waiting when its deadline came", err)
		}
		if n := len(m.times()); n != 1 {
			t.Errorf("the model got %d calls, want 1 (the second waits for the budget)", n)
		}
	})
}
