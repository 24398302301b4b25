package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/web"
)

// guardRoutes are every route that takes input or changes state behind
// credentials.
var guardRoutes = []struct{ method, path string }{
	{http.MethodPost, "/webhooks/telegram"},
	{http.MethodPost, "/webhooks/slack/events"},
	{http.MethodPost, "/webhooks/slack/interactivity"},
	{http.MethodPost, "/v1/events"},
	{http.MethodPost, "/v1/broadcasts"},
	{http.MethodDelete, "/v1/broadcasts/final-round"},
	{http.MethodPost, "/v1/admin/chats/telegram:1/reset"},
	{http.MethodPut, "/v1/admin/chats/telegram:1/export"},
	{http.MethodPost, "/v1/admin/chats/telegram:1/messages"},
	{http.MethodPost, "/v1/admin/chats/telegram:1/pause"},
	{http.MethodPost, "/v1/admin/dead-letters/x/retry"},
	{http.MethodDelete, "/v1/admin/dead-letters/x"},
	{http.MethodPost, "/v1/chat"},
	{http.MethodPost, "/v1/chat/poll"},
	{http.MethodGet, "/v1/chat?chat=web:a"},
}

// guardGateway is the gateway with every authenticated route on, on a
// non-loopback listen, built but not serving: its handler and its store.
func guardGateway(f *testing.F) *gateway {
	cfg := DefaultConfig()
	cfg.Listen = "0.0.0.0:8080"
	cfg.PublicURL = "https://bot.example.com"
	cfg.Provider = ProviderConfig{Kind: "fake"}
	cfg.Channels.Web = &web.Config{Token: strangerWebToken, AllowedOrigins: []string{strangerOrigin}}
	cfg.Channels.Telegram = &telegramConfig{Token: e2eBotToken, WebhookSecret: faultSecret, APIURL: "http://127.0.0.1:1"}
	cfg.Channels.Slack = &slackConfig{BotToken: "xoxb-e2e", SigningSecret: strangerSlackSecret, APIURL: "http://127.0.0.1:1/"}
	cfg.Events.Secret, cfg.Admin.Token = strangerEventSecret, strangerAdminToken
	gw, err := build(context.Background(), cfg, noop.NewTracerProvider().Tracer(""), slog.New(slog.DiscardHandler))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { gw.store.Close() })
	in := botgw.Inbound{Chat: botgw.ChatKey{Channel: "telegram", ID: "1"}, Kind: botgw.KindText, ID: "seed", Text: "hi", At: time.Now()}
	if err := gw.store.Append(context.Background(), in); err != nil { // something a reset could remove
		f.Fatal(err)
	}
	return gw
}

// storeDigest is a hash of every key and value in the store.
func storeDigest(t testing.TB, gw *gateway) [32]byte {
	ctx := context.Background()
	keys, err := gw.store.Client().Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	h := sha256.New()
	c := gw.store.Client()
	for _, k := range keys {
		var v any
		var err error
		switch typ := c.Type(ctx, k).Val(); typ {
		case "string":
			v, err = c.Get(ctx, k).Result()
		case "list":
			v, err = c.LRange(ctx, k, 0, -1).Result()
		case "hash":
			v, err = c.HGetAll(ctx, k).Result()
		case "set":
			var m []string
			m, err = c.SMembers(ctx, k).Result()
			slices.Sort(m)
			v = m
		case "zset":
			v, err = c.ZRangeWithScores(ctx, k, 0, -1).Result()
		case "stream":
			v, err = c.XRange(ctx, k, "-", "+").Result()
		default:
			v = typ
		}
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s\x00%v\x00", k, v)
	}
	return [32]byte(h.Sum(nil))
}

// FuzzRequestGuard sends every authenticated route requests whose headers
// the fuzzer picks (Origin, Sec-Fetch-Site, Authorization, the platforms'
// secret and signature headers, fresh or no timestamps, X-Forwarded-For,
// any other header) without knowing a secret: none may change the store.
// A request with the allowed Origin is the public web chat and may.
func FuzzRequestGuard(f *testing.F) {
	gw := guardGateway(f)
	h := gw.server.Handler()
	want := storeDigest(f, gw)
	for i := range guardRoutes {
		f.Add(uint8(i), "", "same-origin", "", "", true, `{"chat":"web:a","text":"hi"}`)
	}
	f.Add(uint8(12), "", "same-origin", "", "Host: 127.0.0.1:8080", false, `{"chat":"web:a","text":"hi"}`) // the probe's request
	f.Add(uint8(12), "", "same-origin", "", "Host: bot.example.com", false, `{"chat":"web:a","text":"hi"}`)
	f.Add(uint8(12), "null", "", "bearer x", "X-Forwarded-For: 127.0.0.1", false, `{"chat":"web:a","text":"hi"}`)
	f.Add(uint8(12), "http://evil.example", "same-origin", "Bearer ", "Host: evil.example", false, `{"chat":"web:a","text":"hi"}`)
	f.Add(uint8(12), "http://203.0.113.9", "", "", "Host: 203.0.113.9", false, `{"chat":"web:a","text":"hi"}`) // Origin = Host
	f.Add(uint8(5), "", "", "", "X-Botgw-Signature: v1="+strings.Repeat("0", 64), true, "")                    // a DELETE signed as anything else
	f.Add(uint8(0), "", "", "", "X-Telegram-Bot-Api-Secret-Token: "+faultSecret[:5], false, `{"update_id":1,"message":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"text":"hi"}}`)
	f.Add(uint8(3), "", "", "Bearer "+strangerEventSecret[:10], "X-Botgw-Signature: v1="+strings.Repeat("0", 64), true, `{"chat":"telegram:1","text":"x"}`)
	f.Add(uint8(1), "", "", "", "X-Slack-Signature: v0="+strings.Repeat("a", 64), true, `{"type":"event_callback"}`)
	f.Fuzz(func(t *testing.T, route uint8, origin, fetchSite, auth, extra string, fresh bool, body string) {
		rt := guardRoutes[int(route)%len(guardRoutes)]
		req := httptest.NewRequest(rt.method, rt.path, strings.NewReader(body))
		req.Host = "gateway.example" // unless extra names one
		set := func(k, v string) {
			if v != "" {
				req.Header[k] = append(req.Header[k], v)
			}
		}
		set("Origin", origin)
		set("Sec-Fetch-Site", fetchSite)
		set("Authorization", auth)
		if fresh {
			now := strconv.FormatInt(time.Now().Unix(), 10)
			set("X-Slack-Request-Timestamp", now)
			set("X-Botgw-Timestamp", now)
		}
		for _, line := range strings.Split(extra, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if k, v = http.CanonicalHeaderKey(strings.TrimSpace(k)), strings.TrimSpace(v); ok && k == "Host" {
				req.Host = v
			} else if ok {
				set(k, v)
			}
		}
		if publicOrigin(req.Header.Get("Origin")) {
			t.Skip("an allowed origin: the public web chat")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if got := storeDigest(t, gw); got != want {
			t.Fatalf("%s %s answered %d and changed the store without credentials; headers %v, body %q",
				rt.method, rt.path, w.Code, req.Header, bytes.TrimSpace([]byte(body)))
		}
	})
}

// publicOrigin is the contract's rule for a browser's Origin, restated for
// the fuzz test: the allowed origin, or the gateway's own, which is
// public_url's (the listen is not loopback). The request's Host never
// counts.
func publicOrigin(origin string) bool {
	o := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(origin), "/"))
	return o == strangerOrigin || o == "https://bot.example.com"
}
