package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/syncbuf"
	"github.com/botgw/botgw/providers/providertest"
)

// settledMetrics waits until the gateway at base has delivered n turns and
// settled (quiesced), then checks /metrics has a line for each of want: a
// series with its value, or a series alone (any value). It returns the
// /metrics text.
func settledMetrics(t *testing.T, base string, delivered int, want ...string) string {
	t.Helper()
	quiesced(t, base, fmt.Sprintf(`botgw_turn_stage_seconds_count{stage="delivery"} %d`, delivered))
	body := scrape(t, base)
	for _, w := range want {
		if !slices.ContainsFunc(strings.Split(body, "\n"), func(l string) bool { return l == w || strings.HasPrefix(l, w+" ") }) {
			t.Errorf("/metrics lacks %s", w)
		}
	}
	return body
}

func scrape(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", res.StatusCode, b)
	}
	return string(b)
}

func TestMetricsCountTurnsInboundAndRejectedRequests(t *testing.T) {
	cfg := demoConfig(t)
	cfg.Events.Secret = "s3cret"
	base := startGateway(t, cfg)
	for _, text := range []string{"hi", "again"} {
		if status, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:m","text":"`+text+`"}`); status != 200 {
			t.Fatalf("chat: %d %v", status, v)
		}
	}
	if status, _ := e2e.PostJSON(t, base+"/v1/events", `{"chat":"web:m","text":"x"}`, "Authorization", "Bearer wrong"); status != 401 {
		t.Fatalf("bad event auth: %d, want 401", status)
	}
	// The web reply reaches its request before the engine records the
	// turn's delivery: wait for the turn to settle.
	body := settledMetrics(t, base, 2,
		`botgw_turns_total{channel="web",outcome="ok"} 2`,
		`botgw_inbound_total{channel="web",outcome="accepted"} 2`,
		`botgw_http_requests_total{route="/v1/events",status="401"} 1`,
		`botgw_http_requests_total{route="/v1/chat",status="200"} 2`,
		`botgw_turn_stage_seconds_count{stage="provider"} 2`,
		`botgw_turn_stage_seconds_count{stage="delivery"} 2`,
		`botgw_leases_held{channel="web"}`,
		`botgw_state_bytes_count 2`,
		`go_goroutines`)
	if strings.Contains(body, "web:m") {
		t.Error("/metrics names a chat key")
	}
}

func TestLogRedactsChatKeysAndOmitsContent(t *testing.T) {
	var buf bytes.Buffer
	cfg := LogConfig{Format: "json", RedactChats: true, RedactKey: "shared-by-every-replica"}
	log := NewLogger(cfg, &buf)
	k := botgw.ChatKey{Channel: "whatsapp", ID: "447700900123@s.whatsapp.net"}
	log.With("chat", k).Info("turn", "outcome", "ok")
	log.Warn("send failed", "chat", "447700900123@s.whatsapp.net")
	out := buf.String()
	if strings.Contains(out, "447700900123") {
		t.Fatalf("log names the phone number: %s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	// another replica with the same key logs the same hash
	want := newLogPolicy(cfg).hashChat(k.String())
	if first["chat"] != want || !strings.HasPrefix(want, "whatsapp:#") {
		t.Errorf("chat = %v, want the channel and the keyed hash %s", first["chat"], want)
	}
	if p := newLogPolicy(cfg); p.hashChat("telegram:1") == p.hashChat("telegram:2") {
		t.Error("two chats hash alike")
	}
	if newLogPolicy(LogConfig{RedactKey: "another-key-entirely"}).hashChat(k.String()) == want {
		t.Error("the hash does not depend on log.redact_key: a phone number could be found by brute force")
	}
}

func TestLogWithoutRedactKeySaysHashesDifferBetweenReplicas(t *testing.T) {
	var a, b bytes.Buffer
	NewLogger(LogConfig{Format: "json", RedactChats: true}, &a).Info("turn", "chat", "telegram:42")
	NewLogger(LogConfig{Format: "json", RedactChats: true}, &b).Info("turn", "chat", "telegram:42")
	if !strings.Contains(a.String(), "log.redact_key is not set") {
		t.Errorf("no start-up note about the random key:\n%s", a.String())
	}
	hash := regexp.MustCompile(`"chat":"telegram:#[0-9a-f]+"`)
	ha, hb := hash.FindString(a.String()), hash.FindString(b.String())
	if ha == "" || ha == hb || strings.Contains(a.String(), "telegram:42") {
		t.Errorf("two processes without a key hash alike, or the chat is in clear:\n%s%s", a.String(), b.String())
	}
}

func TestTurnLogLineCarriesTextOnlyWithLogContent(t *testing.T) {
	for _, content := range []bool{false, true} {
		var buf syncbuf.Buffer
		cfg := demoConfig(t)
		cfg.Log.Content = content
		base := startGatewayWithLog(t, cfg, slog.New(slog.NewJSONHandler(&buf, nil)))
		e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:c","text":"secret plan"}`)
		line := buf.Line(`"msg":"turn"`)
		if line == "" {
			t.Fatalf("content=%v: no turn log line in %s", content, buf.String())
		}
		for _, key := range []string{`"chat":"web:c"`, `"outcome":"ok"`, `"duration"`, `"tokens_in"`} {
			if !strings.Contains(line, key) {
				t.Errorf("turn line lacks %s: %s", key, line)
			}
		}
		if got := strings.Contains(buf.String(), "secret plan"); got != content {
			t.Errorf("log.content=%v but message text logged=%v", content, got)
		}
	}
}

// TestMetricsShowProviderRetries: a 500 the SDK retried is visible in
// /metrics although the user got an answer (the turn counts as ok).
func TestMetricsShowProviderRetries(t *testing.T) {
	fake := providertest.NewOpenAI(t, failFirst(500))
	one := 1
	cfg := DefaultConfig()
	cfg.Provider = ProviderConfig{Kind: "openai", BaseURL: fake.URL + "/v1", APIKey: "sk-test", Model: "gpt-4o-mini", MaxRetries: &one}
	base := startGateway(t, cfg)
	if _, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:r","text":"hello"}`); v["reply"] != "You said: hello" {
		t.Fatalf("reply = %v, want the answer after the retry", v)
	}
	// The web reply reaches its request before the engine records the
	// turn's delivery: wait for the turn to settle.
	settledMetrics(t, base, 1,
		`botgw_provider_requests_total{provider="openai/gpt-4o-mini",status="500"} 1`,
		`botgw_provider_requests_total{provider="openai/gpt-4o-mini",status="200"} 1`,
		`botgw_provider_retries_total{provider="openai/gpt-4o-mini"} 1`,
		`botgw_turns_total{channel="web",outcome="ok"} 1`,
		`botgw_work_due_chats 0`)
}
