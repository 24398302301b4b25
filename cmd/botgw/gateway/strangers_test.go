package gateway

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/state/redistest"
)

// Secrets of the stranger tests' gateway: the strangers never send them.
const (
	strangerWebToken    = "web-token-0123456789"
	strangerEventSecret = "events-secret-0123456789"
	strangerAdminToken  = "admin-token-0123456789"
	strangerSlackSecret = "slack-signing-secret"
	strangerOrigin      = "https://game.example"
)

// strangerConfig turns on every authenticated route: the Telegram and
// Slack webhooks, app events and broadcasts, the admin API and a web chat
// with a token and one allowed origin. extra is appended (YAML).
func strangerConfig(t *testing.T, extra string) string {
	tg := channeltest.NewBotAPI(t, e2eBotToken, "stranger_bot")
	sl := newSlackAPI(t, "xoxb-e2e")
	return fmt.Sprintf(`
provider: {kind: fake}
compaction: {strategy: none}
channels:
  telegram: {token: %q, webhook_secret: %s, api_url: %q}
  slack: {bot_token: xoxb-e2e, signing_secret: %s, api_url: %q}
  web: {token: %s, allowed_origins: [%q], reply_timeout: 10s}
events: {secret: %s}
admin: {token: %s}
log: {level: warn, format: text}
%s`, e2eBotToken, faultSecret, tg.URL, strangerSlackSecret, sl.URL, strangerWebToken, strangerOrigin,
		strangerEventSecret, strangerAdminToken, extra)
}

// call is one HTTP request of a stranger test.
type call struct {
	method, path, body string
	header             map[string]string
}

// do sends c to base and returns the status and the answer's headers.
func (c call) do(t *testing.T, base string) (int, http.Header) {
	t.Helper()
	method := c.method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequest(method, base+c.path, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range c.header {
		req.Header[http.CanonicalHeaderKey(k)] = []string{v} // an empty value is sent as such
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, c.path, err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, res.Header
}

var inboundLine = regexp.MustCompile(`(?m)^botgw_inbound_total\{channel="([a-z]+)",outcome="accepted"\} (\d+)$`)

// storedInput is how many inputs each channel stored (/metrics).
func storedInput(t *testing.T, base string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, m := range inboundLine.FindAllStringSubmatch(scrape(t, base), -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	return out
}

// TestWebChatTokenCannotBeSkipped runs the probe's requests and every form
// of Origin against the built gateway on a non-loopback listen with
// channels.web.token set: nothing without the token or an allowed origin
// is stored, and the Bearer scheme's case does not matter on any route.
func TestWebChatTokenCannotBeSkipped(t *testing.T) {
	port := freePort(t)[len("127.0.0.1:"):]
	r := newReplica(t, "web", strangerConfig(t, ""), "0.0.0.0:"+port, "http://127.0.0.1:"+port)
	r.start(t)
	msg := func(chat string) string { return `{"chat":"web:` + chat + `","text":"spend tokens"}` }
	refused := []struct {
		name   string
		c      call
		status int
	}{
		{"no Origin, Sec-Fetch-Site same-origin (the probe)", call{path: "/v1/chat", body: msg("p1"),
			header: map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"}}, 401},
		{"no Origin, Sec-Fetch-Site none", call{path: "/v1/chat", body: msg("p2"), header: map[string]string{"Sec-Fetch-Site": "none"}}, 401},
		{"no Origin at all", call{path: "/v1/chat", body: msg("p3")}, 401},
		{"empty Origin", call{path: "/v1/chat", body: msg("p4"), header: map[string]string{"Origin": ""}}, 401},
		{"Origin: null", call{path: "/v1/chat", body: msg("p5"), header: map[string]string{"Origin": "null"}}, 403},
		{"another origin", call{path: "/v1/chat", body: msg("p6"), header: map[string]string{"Origin": "https://evil.example"}}, 403},
		{"another origin, mixed case", call{path: "/v1/chat", body: msg("p7"), header: map[string]string{"Origin": "HTTPS://Evil.Example"}}, 403},
		{"the allowed origin as a suffix", call{path: "/v1/chat", body: msg("p8"), header: map[string]string{"Origin": "https://game.example.evil.example"}}, 403},
		{"wrong token", call{path: "/v1/chat", body: msg("p10"), header: map[string]string{"Authorization": "Bearer nope"}}, 401},
		{"token in another scheme", call{path: "/v1/chat", body: msg("p11"), header: map[string]string{"Authorization": "Basic " + strangerWebToken}}, 401},
		{"same-origin GET poll", call{method: http.MethodGet, path: "/v1/chat?chat=web:p12",
			header: map[string]string{"Sec-Fetch-Site": "same-origin"}}, 401},
		{"poll without Origin", call{path: "/v1/chat/poll", body: `{"chat":"web:p13"}`}, 401},
		{"Origin equal to Host, no public_url, not loopback", call{path: "/v1/chat", body: msg("p14"), header: map[string]string{"Origin": "http://127.0.0.1:" + port}}, 403},
	}
	for _, c := range refused {
		if got, _ := c.c.do(t, r.base); got != c.status {
			t.Errorf("%s: %d, want %d", c.name, got, c.status)
		}
	}
	if stored := storedInput(t, r.base); stored["web"] != 0 {
		t.Fatalf("refused requests stored %d web messages", stored["web"])
	}
	accepted := []struct {
		name string
		c    call
	}{
		{"lower-case bearer", call{path: "/v1/chat", body: msg("a1"), header: map[string]string{"Authorization": "bearer " + strangerWebToken}}},
		{"upper-case BEARER", call{path: "/v1/chat", body: msg("a2"), header: map[string]string{"Authorization": "BEARER " + strangerWebToken}}},
		{"the allowed origin, mixed case", call{path: "/v1/chat", body: msg("a3"), header: map[string]string{"Origin": "https://GAME.example"}}},
		{"lower-case bearer on /v1/events", call{path: "/v1/events", body: `{"chat":"web:a4","text":"visited the theatre"}`,
			header: map[string]string{"Authorization": "bearer " + strangerEventSecret}}},
	}
	for _, c := range accepted {
		if got, h := c.c.do(t, r.base); got != http.StatusOK && got != http.StatusAccepted {
			t.Errorf("%s: %d, want it stored", c.name, got)
		} else if h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q, want nosniff", c.name, h.Get("X-Content-Type-Options"))
		}
	}
	if got, _ := (call{method: http.MethodGet, path: "/v1/admin/chats", header: map[string]string{"Authorization": "bearer " + strangerAdminToken}}).do(t, r.base); got != http.StatusOK {
		t.Errorf("lower-case bearer on the admin API: %d, want 200", got)
	}
	if stored := storedInput(t, r.base); stored["web"] != len(accepted) {
		t.Errorf("stored %d web inputs, want the %d accepted ones", stored["web"], len(accepted))
	}
}

// zeros is an endless body.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// rss is the resident memory of process pid, in bytes.
func rss(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read the gateway's memory: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			return n << 10
		}
	}
	t.Fatal("no VmRSS in /proc/<pid>/status")
	return 0
}

// peakRSS samples pid's memory until stop is closed and returns the most
// it saw.
func peakRSS(t *testing.T, pid int, stop <-chan struct{}) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if err == nil {
				for _, line := range strings.Split(string(b), "\n") {
					if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
						n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
						peak = max(peak, n<<10)
					}
				}
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// flood sends n concurrent bodies of size bytes (chunked or with a
// Content-Length) and returns the statuses, 0 for a connection the gateway
// closed while the body was still being sent.
func flood(base string, c call, n int, size int64, chunked bool) []int {
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var body io.Reader = io.LimitReader(zeros{}, size)
			req, _ := http.NewRequest(cmp.Or(c.method, http.MethodPost), base+c.path, body)
			req.ContentLength = size
			if chunked {
				req.ContentLength = -1
			}
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			statuses[i] = res.StatusCode
		})
	}
	wg.Wait()
	return statuses
}

// TestStrangersBodiesHoldNoMemory sends 16 concurrent 50 MiB bodies without
// valid credentials to every authenticated route, with and without a
// Content-Length, to the gateway as users build it: its memory stays
// within 100 MiB of what it was. The signed routes get a fresh timestamp
// and a well-formed but wrong signature, so they read the body (up to their
// limit) before they can refuse it.
func TestStrangersBodiesHoldNoMemory(t *testing.T) {
	addr := freePort(t)
	r := newReplica(t, "bodies", strangerConfig(t, ""), addr, "http://"+addr)
	r.bin = plainBinary(t)
	r.start(t)
	now := strconv.FormatInt(time.Now().Unix(), 10)
	badSig := strings.Repeat("ab", 32)
	routes := map[string]call{
		"telegram without secret":     {path: "/webhooks/telegram"},
		"telegram wrong secret":       {path: "/webhooks/telegram", header: map[string]string{"X-Telegram-Bot-Api-Secret-Token": "nope"}},
		"slack forged signature":      {path: "/webhooks/slack/events", header: map[string]string{"X-Slack-Request-Timestamp": now, "X-Slack-Signature": "v0=" + badSig}},
		"events without credentials":  {path: "/v1/events"},
		"events forged signature":     {path: "/v1/events", header: map[string]string{"X-Botgw-Timestamp": now, "X-Botgw-Signature": "v1=" + badSig}},
		"broadcasts forged signature": {path: "/v1/broadcasts", header: map[string]string{"X-Botgw-Timestamp": now, "X-Botgw-Signature": "v1=" + badSig}},
		"broadcasts wrong bearer":     {path: "/v1/broadcasts", header: map[string]string{"Authorization": "Bearer nope"}},
		"admin import":                {method: http.MethodPut, path: "/v1/admin/chats/web:x/export"},
		"admin message":               {path: "/v1/admin/chats/web:x/messages", header: map[string]string{"Authorization": "bearer nope"}},
		"web chat without token":      {path: "/v1/chat"},
		"web chat, allowed origin":    {path: "/v1/chat", header: map[string]string{"Origin": strangerOrigin}},
	}
	if got, _ := (call{path: "/v1/chat", body: `{"chat":"web:warm","text":"hi"}`, header: map[string]string{"Origin": strangerOrigin}}).do(t, r.base); got != http.StatusOK {
		t.Fatalf("warm-up message: %d", got)
	}
	pid := r.cmd.Process.Pid
	idle := rss(t, pid)
	stop := make(chan struct{})
	peak := peakRSS(t, pid, stop)
	for name, c := range routes {
		for _, chunked := range []bool{false, true} {
			for _, s := range flood(r.base, c, 16, 50<<20, chunked) {
				if s == http.StatusOK || s == http.StatusAccepted {
					t.Errorf("%s (chunked %v): %d, a stranger's body was accepted", name, chunked, s)
				}
			}
		}
	}
	close(stop)
	grown := <-peak - idle
	t.Logf("RSS idle %d MiB, peak %d MiB above it", idle>>20, grown>>20)
	if grown > 100<<20 {
		t.Errorf("the strangers' bodies took the gateway's memory %d MiB above idle (%d MiB), want at most 100", grown>>20, idle>>20)
	}
	if stored := storedInput(t, r.base); stored["web"] != 1 || stored["telegram"]+stored["slack"] != 0 {
		t.Errorf("stored %v, want only the warm-up message", stored)
	}
}

// TestWebChatLimitsEachClientAcrossReplicas gives the public web chat 3
// messages a minute per client behind a trusted proxy, on two replicas
// sharing Redis: the fourth message of a client, on either replica, is 429
// with Retry-After and stored nowhere; another client and a token holder
// are not held back.
func TestWebChatLimitsEachClientAcrossReplicas(t *testing.T) {
	url := redistest.URL(t)
	prefix := "botgwtest-clients-" + strconv.FormatInt(time.Now().UnixNano(), 10)
	t.Cleanup(func() { redistest.Drop(t, url, prefix) })
	cfg := strangerConfig(t, fmt.Sprintf(`redis: {url: %q, key_prefix: %s}
trusted_proxies: ["127.0.0.0/8"]
`, url, prefix))
	cfg = strings.Replace(cfg, "reply_timeout: 10s}", "reply_timeout: 10s, per_client_per_minute: 3}", 1)
	replicas := []*replica{startReplica(t, "a", cfg), startReplica(t, "b", cfg)}
	from := func(client string) map[string]string {
		return map[string]string{"Origin": strangerOrigin, "X-Forwarded-For": "203.0.113.50, " + client}
	}
	send := func(i int, chat string, header map[string]string) (int, http.Header) {
		return call{path: "/v1/chat", body: `{"chat":"web:` + chat + `","text":"hi"}`, header: header}.do(t, replicas[i%2].base)
	}
	for i := range 3 {
		if got, _ := send(i, fmt.Sprintf("c%d", i), from("198.51.100.7")); got != http.StatusOK {
			t.Fatalf("message %d of the client: %d, want 200", i+1, got)
		}
	}
	for i := range 2 { // over the allowance, on both replicas
		got, h := send(i, fmt.Sprintf("over%d", i), from("198.51.100.7"))
		if secs, err := strconv.Atoi(h.Get("Retry-After")); got != http.StatusTooManyRequests || err != nil || secs < 1 {
			t.Errorf("message over the allowance on replica %d: %d, Retry-After %q; want 429 with Retry-After", i, got, h.Get("Retry-After"))
		}
	}
	if got, _ := send(0, "other", from("198.51.100.8")); got != http.StatusOK {
		t.Errorf("another client: %d, want 200", got)
	}
	if got, _ := send(1, "server", map[string]string{"Authorization": "Bearer " + strangerWebToken}); got != http.StatusOK {
		t.Errorf("the token holder: %d, want 200 (not limited)", got)
	}
	admin := map[string]string{"Authorization": "Bearer " + strangerAdminToken}
	for _, chat := range []string{"over0", "over1"} {
		if got, _ := (call{method: http.MethodGet, path: "/v1/admin/chats/web:" + chat, header: admin}).do(t, replicas[0].base); got != http.StatusNotFound {
			t.Errorf("refused chat %s: admin view %d, want 404 (nothing stored)", chat, got)
		}
	}
	if got, _ := (call{method: http.MethodGet, path: "/v1/admin/chats/web:c0", header: admin}).do(t, replicas[0].base); got != http.StatusOK {
		t.Errorf("admitted chat c0: admin view %d, want 200", got)
	}
}
