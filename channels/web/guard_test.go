package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

// request is one /v1/chat call as a browser or a client would send it.
type request struct {
	method, host string
	header       map[string]string
}

func (q request) do(h http.Handler) int {
	body := `{"chat":"web:s3cret","text":"hi"}`
	if q.method == http.MethodGet {
		body = ""
	}
	r := httptest.NewRequest(q.method, "/v1/chat?chat=web:s3cret", strings.NewReader(body))
	r.Host = q.host
	for k, v := range q.header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

func TestChatAcceptsOnlyAllowedOriginsAndTrustedClients(t *testing.T) {
	loop := Site{Loopback: true, Listen: "127.0.0.1:8080"}
	open := Site{Loopback: false, PublicURL: "https://bot.example.com"}
	withOrigins := Config{AllowedOrigins: []string{"https://Game.example.com/"}}
	withToken := Config{Token: "tok"}
	for _, c := range []struct {
		name string
		cfg  Config
		site Site
		req  request
		want int
	}{
		{"curl on loopback", Config{}, loop, request{host: "127.0.0.1:8080"}, 200},
		{"same-origin page on loopback", Config{}, loop, request{host: "127.0.0.1:8080", header: map[string]string{"Origin": "http://127.0.0.1:8080"}}, 200},
		{"localhost page", Config{}, loop, request{host: "localhost:8080", header: map[string]string{"Origin": "http://localhost:8080"}}, 200},
		{"cross-site page on loopback", Config{}, loop, request{host: "127.0.0.1:8080", header: map[string]string{"Origin": "https://evil.example"}}, 403},
		{"sandboxed frame", Config{}, loop, request{host: "127.0.0.1:8080", header: map[string]string{"Origin": "null"}}, 403},
		{"DNS rebinding", Config{}, loop, request{host: "evil.example:8080", header: map[string]string{"Origin": "http://evil.example:8080"}}, 403},
		{"cross-site no-cors", Config{}, loop, request{host: "127.0.0.1:8080", header: map[string]string{"Sec-Fetch-Site": "cross-site"}}, 403},
		{"allowed origin", withOrigins, open, request{host: "bot.example.com", header: map[string]string{"Origin": "https://game.example.com"}}, 200},
		{"own public origin", withOrigins, open, request{host: "bot.example.com", header: map[string]string{"Origin": "https://bot.example.com"}}, 200},
		{"other origin", withOrigins, open, request{host: "bot.example.com", header: map[string]string{"Origin": "https://evil.example"}}, 403},
		{"no origin, no token, not loopback", withOrigins, open, request{host: "bot.example.com"}, 401},
		{"no origin, token", withToken, open, request{host: "bot.example.com", header: map[string]string{"Authorization": "Bearer tok"}}, 200},
		{"no origin, wrong token", withToken, open, request{host: "bot.example.com", header: map[string]string{"Authorization": "Bearer nope"}}, 401},
		{"token set on loopback", withToken, loop, request{host: "127.0.0.1:8080"}, 401},
		{"no origin, same-origin fetch, own host", withOrigins, open, request{host: "bot.example.com", header: map[string]string{"Sec-Fetch-Site": "same-origin"}}, 401},
		{"no origin, same-origin fetch, token set on loopback", withToken, loop, request{host: "127.0.0.1:8080", header: map[string]string{"Sec-Fetch-Site": "same-origin"}}, 401},
		{"lower-case bearer", withToken, open, request{host: "bot.example.com", header: map[string]string{"Authorization": "bearer tok"}}, 200},
		{"Origin equal to Host, no public_url, token set", withToken, Site{Listen: "0.0.0.0:8080"}, request{host: "203.0.113.9", header: map[string]string{"Origin": "http://203.0.113.9"}}, 403},
		{"Origin equal to Host, another port on loopback", Config{}, loop, request{host: "127.0.0.1:9999", header: map[string]string{"Origin": "http://127.0.0.1:9999"}}, 403},
		{"public_url with its default port", withToken, Site{PublicURL: "https://Bot.example.com:443/chat"}, request{host: "203.0.113.9", header: map[string]string{"Origin": "https://bot.example.com"}}, 200},
	} {
		for _, method := range []string{http.MethodPost, http.MethodGet} {
			stored := 0
			a := New(c.cfg, c.site, slog.New(slog.DiscardHandler))
			a.cfg.ReplyTimeout = time.Millisecond
			h := a.ChatHandler(func(context.Context, botgw.Inbound) error { stored++; return nil })
			c.req.method = method
			got := c.req.do(h)
			if got == http.StatusAccepted {
				got = 200 // stored, the reply still pending
			}
			if got != c.want {
				t.Errorf("%s %s: %d, want %d", c.name, method, got, c.want)
			}
			if got != 200 && stored != 0 {
				t.Errorf("%s %s: refused (%d) but stored", c.name, method, got)
			}
		}
	}
}

func TestUncollectedRepliesExpire(t *testing.T) {
	a := New(Config{UnclaimedTTL: time.Minute}, Site{Loopback: true}, slog.New(slog.DiscardHandler))
	now := time.Unix(1700000000, 0)
	a.now = func() time.Time { return now }
	old := botgw.ChatKey{Channel: Name, ID: "gone"}
	_ = a.Send(context.Background(), botgw.Outbound{Chat: old, ID: "1", Text: "nobody reads this"})
	now = now.Add(2 * time.Minute)
	for i := range 3 {
		k := botgw.ChatKey{Channel: Name, ID: "new" + string(rune('a'+i))}
		_ = a.Send(context.Background(), botgw.Outbound{Chat: k, ID: "1", Text: "fresh"})
	}
	if n := a.unclaimedChats(); n != 3 {
		t.Errorf("%d chats keep replies, want 3 (the expired one dropped)", n)
	}
	if got := a.take(old); len(got) != 0 {
		t.Errorf("an expired reply was handed out: %v", got)
	}
	now = now.Add(2 * time.Minute)
	if got := a.take(botgw.ChatKey{Channel: Name, ID: "newa"}); len(got) != 0 {
		t.Errorf("a reply older than the TTL was handed out: %v", got)
	}
}

func TestUncollectedRepliesAreBoundedAcrossChats(t *testing.T) {
	a := New(Config{}, Site{Loopback: true}, slog.New(slog.DiscardHandler))
	for i := range maxUnclaimedChats + 50 {
		k := botgw.ChatKey{Channel: Name, ID: "c" + strings.Repeat("x", i%7) + string(rune('0'+i%10)) + time.Duration(i).String()}
		_ = a.Send(context.Background(), botgw.Outbound{Chat: k, ID: "1", Text: "x"})
	}
	if n := a.unclaimedChats(); n > maxUnclaimedChats {
		t.Errorf("%d chats keep replies, want at most %d", n, maxUnclaimedChats)
	}
}

func TestLoopbackListen(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:8080": true, "localhost:8080": true, "[::1]:8080": true,
		"127.3.4.5:80": true, "0.0.0.0:8080": false, ":8080": false, "10.0.0.1:8080": false, "[::]:8080": false, "bad": false} {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestAllowedOriginGetsCORSAndOthersDoNot(t *testing.T) {
	a := New(Config{AllowedOrigins: []string{"https://game.example.com"}}, Site{}, slog.New(slog.DiscardHandler))
	h := a.ChatHandler(func(context.Context, botgw.Inbound) error { return nil })
	for origin, want := range map[string]int{"https://game.example.com": http.StatusNoContent, "https://evil.example": http.StatusForbidden} {
		r := httptest.NewRequest(http.MethodOptions, "/v1/chat", nil)
		r.Host = "bot.example.com"
		r.Header.Set("Origin", origin)
		r.Header.Set("Access-Control-Request-Method", "POST")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		allow := w.Header().Get("Access-Control-Allow-Origin")
		if w.Code != want || (want == http.StatusNoContent) != (allow == origin) {
			t.Errorf("preflight from %s: %d, Allow-Origin %q", origin, w.Code, allow)
		}
	}
}
