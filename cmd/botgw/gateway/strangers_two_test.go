package gateway

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/state/redistest"
	"github.com/botgw/botgw/webhooks"
)

// strangerRedisConfig is strangerConfig on real Redis under a key prefix
// of its own.
func strangerRedisConfig(t *testing.T, name string) string {
	url := redistest.URL(t)
	prefix := "botgwtest-" + name + "-" + strconv.FormatInt(time.Now().UnixNano(), 10)
	t.Cleanup(func() { redistest.Drop(t, url, prefix) })
	return strangerConfig(t, fmt.Sprintf("redis: {url: %q, key_prefix: %s}\n", url, prefix))
}

// slowBody opens a connection from 127.0.0.2 (another client than the
// tests' 127.0.0.1) and sends a request's headers declaring size bytes of
// body, then nothing. The channel gets the answer's status once the
// gateway answers (0: it closed the connection without one).
func slowBody(t *testing.T, addr, path string, header map[string]string, size int) <-chan int {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from 127.0.0.2: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", path, addr, size)
	for k, v := range header {
		head += k + ": " + v + "\r\n"
	}
	if _, err := io.WriteString(c, head+"\r\n"); err != nil {
		t.Fatalf("send headers: %v", err)
	}
	out := make(chan int, 1)
	go func() {
		_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			out <- 0
			return
		}
		res.Body.Close()
		out <- res.StatusCode
	}()
	return out
}

// TestSlowBodiesStarveOnlyTheirSender is the probe's attack on the built
// gateway with real Redis: one client opens 8 connections to
// /v1/broadcasts with a well-formed forged signature declaring 16 MiB and
// 8 to /webhooks/slack/events declaring 1 MiB (Slack's limit; more is 413
// unread), and sends no body. Meanwhile genuine Telegram webhooks from
// another client are answered 200 within 3 s, and the slow client's
// requests are answered 408 once their bodies' deadline passes, counted
// by route.
func TestSlowBodiesStarveOnlyTheirSender(t *testing.T) {
	addr := freePort(t)
	r := newReplica(t, "slow", strangerRedisConfig(t, "slow"), addr, "http://"+addr)
	r.start(t)
	now := strconv.FormatInt(time.Now().Unix(), 10)
	badSig := strings.Repeat("ab", 32)
	var slow []<-chan int
	for range 8 {
		slow = append(slow, slowBody(t, addr, "/v1/broadcasts", map[string]string{"X-Botgw-Timestamp": now, "X-Botgw-Signature": "v1=" + badSig}, 16<<20))
		slow = append(slow, slowBody(t, addr, "/webhooks/slack/events", map[string]string{"X-Slack-Request-Timestamp": now, "X-Slack-Signature": "v0=" + badSig}, 1<<20))
	}
	client := &http.Client{Timeout: 3 * time.Second}
	for i := range 10 { // over 2 s, while the slow bodies are held
		req, _ := http.NewRequest(http.MethodPost, r.base+"/webhooks/telegram", strings.NewReader(tgText(4242, i+1, "hello")))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", faultSecret)
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("telegram update %d while a stranger holds slow bodies: %v (not answered within 3 s)", i+1, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("telegram update %d while a stranger holds slow bodies: %d, want 200", i+1, res.StatusCode)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for i, c := range slow {
		if got := <-c; got != http.StatusRequestTimeout {
			t.Errorf("slow body %d: %d, want 408 (its deadline)", i, got)
		}
	}
	page := scrape(t, r.base)
	for _, route := range []string{"/v1/broadcasts", "/webhooks/slack/*"} { // the route patterns
		line := fmt.Sprintf(`botgw_http_bodies_refused_total{reason="timeout",route=%q} 8`, route)
		if !strings.Contains(page, line) {
			t.Errorf("metrics lack %s", line)
		}
	}
}

// TestOwnOriginIsNeverTheHost: on a non-loopback listen with the web
// token set and no allowed_origins, a client that sends an Origin equal to
// the Host it sends is not the gateway's page: 403, nothing stored.
func TestOwnOriginIsNeverTheHost(t *testing.T) {
	port := freePort(t)[len("127.0.0.1:"):]
	cfg := strings.Replace(strangerRedisConfig(t, "origin"), fmt.Sprintf(", allowed_origins: [%q]", strangerOrigin), "", 1)
	r := newReplica(t, "origin", cfg, "0.0.0.0:"+port, "http://127.0.0.1:"+port)
	r.start(t)
	for _, host := range []string{"203.0.113.9", "127.0.0.1:" + port} {
		req, _ := http.NewRequest(http.MethodPost, r.base+"/v1/chat", strings.NewReader(`{"chat":"web:h1","text":"spend tokens"}`))
		req.Host = host
		req.Header.Set("Origin", "http://"+host)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("Host %s with Origin http://%s, no token: %d, want 403", host, host, res.StatusCode)
		}
	}
	if stored := storedInput(t, r.base); stored["web"] != 0 {
		t.Errorf("stored %d web messages, want none", stored["web"])
	}
}

// TestBroadcastSignatureAuthorisesOneMethod: a signed GET of a broadcast
// does not cancel it when replayed as DELETE; DELETE's own signature does.
func TestBroadcastSignatureAuthorisesOneMethod(t *testing.T) {
	addr := freePort(t)
	r := newReplica(t, "sigmethod", strangerRedisConfig(t, "sigmethod"), addr, "http://"+addr)
	r.start(t)
	bearer := map[string]string{"Authorization": "Bearer " + strangerEventSecret}
	create := call{path: "/v1/broadcasts", body: `{"id":"final-round","chats":["telegram:1","telegram:2"],"message":"The final round starts soon"}`, header: bearer}
	if got, _ := create.do(t, r.base); got != http.StatusAccepted {
		t.Fatalf("create: %d", got)
	}
	signed := func(method string) map[string]string {
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		base := webhooks.BodilessContent(method, "/v1/broadcasts/final-round")
		return map[string]string{"X-Botgw-Timestamp": ts, "X-Botgw-Signature": webhooks.Sign([]byte(strangerEventSecret), ts, base)}
	}
	get := signed(http.MethodGet)
	if got, _ := (call{method: http.MethodGet, path: "/v1/broadcasts/final-round", header: get}).do(t, r.base); got != http.StatusOK {
		t.Fatalf("signed GET: %d, want 200", got)
	}
	if got, _ := (call{method: http.MethodDelete, path: "/v1/broadcasts/final-round", header: get}).do(t, r.base); got != http.StatusUnauthorized {
		t.Errorf("DELETE with the GET's signature: %d, want 401", got)
	}
	if got, _ := (call{method: http.MethodDelete, path: "/v1/broadcasts/final-round", header: signed(http.MethodDelete)}).do(t, r.base); got != http.StatusOK {
		t.Errorf("DELETE with its own signature (%q signed): %d, want 200", "<ts>.DELETE /v1/broadcasts/final-round", got)
	}
}

// jsEncodeURIComponent escapes s as the console's JavaScript does.
func jsEncodeURIComponent(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// TestAdminChatKeysAreDecodedOnce stores the chats web:victim%41 and
// web:victimA, then reads and resets web:victim%41 through the admin API
// with the console's escaping and with Go's: each acts on web:victim%41,
// never on web:victimA.
func TestAdminChatKeysAreDecodedOnce(t *testing.T) {
	addr := freePort(t)
	r := newReplica(t, "paths", strangerRedisConfig(t, "paths"), addr, "http://"+addr)
	r.start(t)
	token := map[string]string{"Authorization": "Bearer " + strangerWebToken}
	admin := map[string]string{"Authorization": "Bearer " + strangerAdminToken}
	for _, chat := range []string{"web:victim%41", "web:victimA"} {
		if got, _ := (call{path: "/v1/chat", body: `{"chat":"` + chat + `","text":"I am ` + chat + `"}`, header: token}).do(t, r.base); got != http.StatusOK {
			t.Fatalf("message to %s: %d", chat, got)
		}
	}
	for name, escaped := range map[string]string{"encodeURIComponent": jsEncodeURIComponent("web:victim%41"), "url.PathEscape": url.PathEscape("web:victim%41")} {
		if got := adminChatKey(t, r.base+"/v1/admin/chats/"+escaped, admin); got != "web:victim%41" {
			t.Errorf("GET /v1/admin/chats/%s (%s): chat %q, want web:victim%%41", escaped, name, got)
		}
	}
	if got, _ := (call{path: "/v1/admin/chats/" + url.PathEscape("web:victim%41") + "/reset", header: admin}).do(t, r.base); got != http.StatusOK {
		t.Fatalf("reset web:victim%%41: %d", got)
	}
	if got := adminChatKey(t, r.base+"/v1/admin/chats/web:victimA", admin); got != "web:victimA" {
		t.Errorf("web:victimA after resetting web:victim%%41: %q, want it kept", got)
	}
	if got := adminChatKey(t, r.base+"/v1/admin/chats/"+jsEncodeURIComponent("web:victim%41"), admin); got != "" {
		t.Errorf("web:victim%%41 after its reset: %q, want it gone", got)
	}
}

// adminChatKey is the "chat" of GET url's answer; "" when it is 404.
func adminChatKey(t *testing.T, url string, header map[string]string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNotFound {
		return ""
	}
	var v struct {
		Chat string `json:"chat"`
	}
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
	return v.Chat
}
