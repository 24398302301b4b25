package state

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/syncbuf"
	"github.com/botgw/botgw/state/redistest"
)

func TestOpenEmbeddedExpiresState(t *testing.T) {
	var logs syncbuf.Buffer
	s, err := Open(t.Context(), Config{}, Options{}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatalf("Open embedded: %v", err)
	}
	defer s.Close()
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "embedded") {
		t.Errorf("Open embedded logged %q, want a warning that data lives in the process", logs.String())
	}
	k := chat("embedded")
	snap, err := s.Begin(t.Context(), k, "")
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	c := botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), TTL: time.Second}
	if err := s.Commit(t.Context(), k, c); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := s.Info(t.Context(), k)
		if errors.Is(err, botgw.ErrNotFound) {
			return
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("Info 10s after a commit with a 1s TTL = %v, want ErrNotFound (embedded TTLs must run)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestOpenRedis(t *testing.T) {
	s, err := Open(t.Context(), Config{URL: redistest.URL(t), KeyPrefix: "botgwtest-open"}, Options{}, testLogger(t))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	ok, err := s.Once(t.Context(), newToken(), time.Second)
	if err != nil || !ok {
		t.Errorf("Once on a fresh name = %v, %v; want true", ok, err)
	}
}

func TestOpenUnreachable(t *testing.T) {
	_, err := Open(t.Context(), Config{URL: "redis://127.0.0.1:1/0?dial_timeout=1&max_retries=-1"}, Options{}, testLogger(t))
	if err == nil || !strings.Contains(err.Error(), "ping redis") {
		t.Errorf("Open on a closed port = %v, want a ping error", err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // substrings of the error; none = valid
	}{
		{"embedded", Config{}, nil},
		{"url", Config{URL: "redis://user:pw@localhost:6379/2?pool_size=5"}, nil},
		{"tls", Config{URL: "rediss://redis.example.com:6380"}, nil},
		{"cluster url", Config{URL: "redis://a:7000?addr=b:7001", Cluster: true}, nil},
		{"addrs", Config{Addrs: []string{"a:7000", "b:7001"}}, nil},
		{"bad scheme", Config{URL: "http://localhost"}, []string{"redis.url:"}},
		{"unknown option", Config{URL: "redis://localhost?bogus=1"}, []string{"redis.url:"}},
		{"both", Config{URL: "redis://localhost", Addrs: []string{"a:1"}}, []string{"redis.addrs:"}},
		{"bad addr", Config{Addrs: []string{"nohost"}}, []string{"redis.addrs[0]:"}},
		{"embedded cluster", Config{Cluster: true}, []string{"redis.cluster:"}},
		{"brace prefix", Config{KeyPrefix: "bot{gw}"}, []string{"redis.key_prefix:"}},
		{"several", Config{URL: "http://x", KeyPrefix: "{"}, []string{"redis.url:", "redis.key_prefix:"}},
		{"timings", Config{URL: "redis://localhost", LeaseTTL: 2 * time.Second, Visibility: time.Second}, nil},
		{"short lease", Config{LeaseTTL: 10 * time.Millisecond}, []string{"redis.lease_ttl:"}},
		{"short visibility", Config{Visibility: time.Millisecond}, []string{"redis.visibility:"}},
		{"sentinel", Config{Sentinel: &Sentinel{Master: "mymaster", Addrs: []string{"a:26379", "b:26379"}}, MinReplicas: 1}, nil},
		{"sentinel and url", Config{URL: "redis://localhost", Sentinel: &Sentinel{Master: "m", Addrs: []string{"a:1"}}}, []string{"redis.sentinel:"}},
		{"sentinel cluster", Config{Cluster: true, Sentinel: &Sentinel{Master: "m", Addrs: []string{"a:1"}}}, []string{"redis.cluster:"}},
		{"sentinel without master", Config{Sentinel: &Sentinel{Addrs: []string{"a:1"}}}, []string{"redis.sentinel.master:"}},
		{"sentinel without addrs", Config{Sentinel: &Sentinel{Master: "m"}}, []string{"redis.sentinel.addrs:"}},
		{"sentinel bad addr", Config{Sentinel: &Sentinel{Master: "m", Addrs: []string{"a:1", "nohost"}}}, []string{"redis.sentinel.addrs[1]:"}},
		{"negative min_replicas", Config{URL: "redis://localhost", MinReplicas: -1}, []string{"redis.min_replicas:"}},
		{"embedded min_replicas", Config{MinReplicas: 1}, []string{"redis.min_replicas:"}},
		{"long replica_timeout", Config{URL: "redis://localhost", ReplicaTimeout: time.Minute}, []string{"redis.replica_timeout:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Errorf("Validate() = %v, want nil", err)
				}
				return
			}
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %v, want it to name %s", err, w)
				}
			}
		})
	}
}

// A replica keeps defaultPoolSize connections to Redis unless the URL's
// pool_size asks for another number.
func TestPoolSizeFromURL(t *testing.T) {
	for url, want := range map[string]int{
		"redis://127.0.0.1:1/0":             defaultPoolSize,
		"redis://127.0.0.1:1/0?pool_size=7": 7,
		"redis://127.0.0.1:1?pool_size=9":   9,
	} {
		c, err := Config{URL: url}.client()
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		if got := c.(*redis.Client).Options().PoolSize; got != want {
			t.Errorf("%s: pool size %d, want %d", url, got, want)
		}
		c.Close()
	}
	c, err := Config{URL: "redis://127.0.0.1:1?pool_size=5", Cluster: true}.client()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.(*redis.ClusterClient).Options().PoolSize; got != 5 {
		t.Errorf("cluster pool size %d, want 5", got)
	}
}
