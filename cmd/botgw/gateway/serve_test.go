package gateway

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/e2e"
)

// startGateway runs Serve in-process on a free loopback port and returns
// its base URL; the gateway stops when the test ends.
func startGateway(t testing.TB, cfg Config) string {
	t.Helper()
	return startGatewayWithLog(t, cfg, slog.New(slog.DiscardHandler))
}

// startGatewayWithLog is startGateway logging to log.
func startGatewayWithLog(t testing.TB, cfg Config, log *slog.Logger) string {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, cfg, log, func(a net.Addr) { addr <- a })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("gateway did not stop within 30s")
		}
	})
	select {
	case a := <-addr:
		return "http://" + a.String()
	case err := <-done:
		t.Fatalf("serve: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("gateway did not listen within 10s")
	}
	return ""
}

// demoConfig is DefaultConfig on the demo provider, whatever model API
// keys the environment holds.
func demoConfig(t *testing.T) Config {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	return DefaultConfig()
}

func TestDefaultGatewayChatsOverHTTP(t *testing.T) {
	base := startGateway(t, demoConfig(t))
	status, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:a","text":"hi"}`)
	if status != 200 || !strings.Contains(v["reply"].(string), `"hi"`) {
		t.Fatalf("first turn: %d %v", status, v)
	}
	_, v = e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:a","text":"second"}`)
	if reply := v["reply"].(string); !strings.Contains(reply, `"hi"`) || !strings.Contains(reply, "2 messages") {
		t.Errorf("second reply does not remember the first message: %q", reply)
	}
	for body, field := range map[string]string{`{"text":"x"}`: "chat", `{"chat":"web:a"}`: "text", `{"chat":"slack:C1","text":"x"}`: "chat", `{`: "body"} {
		if status, v := e2e.PostJSON(t, base+"/v1/chat", body); status != 400 || !strings.HasPrefix(v["error"].(string), field) {
			t.Errorf("%s: %d %v, want 400 naming %s", body, status, v, field)
		}
	}
	res, err := http.Get(base + "/readyz")
	if err != nil || res.StatusCode != 200 {
		t.Errorf("readyz: %v %v", res.Status, err)
	}
}
