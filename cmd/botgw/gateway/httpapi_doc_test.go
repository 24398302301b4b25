package gateway

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace/noop"

	"github.com/labstack/echo/v4"

	"github.com/botgw/botgw/channels/stream/webhook"
	"github.com/botgw/botgw/channels/web"
)

// TestHTTPAPIPageNamesEveryRoute builds the gateway with every channel and
// API on and checks that each route its echo router holds is written on
// docs/http-api.md as `METHOD /path/{param}` (a channel's webhook as a route at
// or under /webhooks/<name>): a route added without its documentation fails
// here.
func TestHTTPAPIPageNamesEveryRoute(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "http-api.md"))
	if err != nil {
		t.Fatal(err)
	}
	routes := allRoutes(t)
	if len(routes) < 30 {
		t.Fatalf("the router holds only %d routes: %v", len(routes), routes)
	}
	param := regexp.MustCompile(`:([a-z]+)`)
	for path, methods := range routes {
		doc := param.ReplaceAllString(path, "{$1}")
		switch {
		case len(methods) > 5: // echo's Any: a channel's webhook handler, which serves its own paths
			if base := strings.TrimSuffix(doc, "/*"); !strings.Contains(string(page), " "+base) {
				t.Errorf("no route at or under %s is on docs/http-api.md", base)
			}
		default:
			for _, m := range methods {
				if !strings.Contains(string(page), "`"+m+" "+doc+"`") {
					t.Errorf("`%s %s` is not on docs/http-api.md", m, doc)
				}
			}
		}
	}
}

// allRoutes builds (without serving) a gateway with Telegram, Slack,
// WhatsApp (when built in), the web chat, events, broadcasts, the admin API
// and the stream on, and returns its routes: methods by path pattern.
func allRoutes(t *testing.T) map[string][]string {
	cfg := DefaultConfig()
	cfg.Provider = ProviderConfig{Kind: "fake"}
	cfg.Channels.Web = &web.Config{}
	cfg.Channels.Telegram = &telegramConfig{Token: e2eBotToken, WebhookSecret: faultSecret, APIURL: "http://127.0.0.1:1"}
	cfg.Channels.Slack = &slackConfig{BotToken: "xoxb-doc", SigningSecret: "doc-signing-secret", APIURL: "http://127.0.0.1:1/"}
	cfg.Channels.WhatsApp = &whatsappConfig{Store: "sqlite://" + filepath.Join(t.TempDir(), "wa.db")}
	cfg.Channels.WhatsAppCloud = &whatsappCloudConfig{PhoneNumberID: "1", AccessToken: "t", AppSecret: "s", VerifyToken: "v"}
	cfg.Events.Secret, cfg.Admin.Token = "doc-events-secret", "doc-admin-token"
	cfg.Stream.Webhook = &webhook.Config{URL: "http://127.0.0.1:1/stream", Secret: "doc-stream-secret-0123"}
	tracer, log := noop.NewTracerProvider().Tracer(""), slog.New(slog.DiscardHandler)
	gw, err := build(context.Background(), cfg, tracer, log)
	if err != nil && strings.Contains(err.Error(), "without WhatsApp") {
		t.Log("this binary has no WhatsApp (-tags nowhatsapp): its routes are not checked")
		cfg.Channels.WhatsApp = nil
		gw, err = build(context.Background(), cfg, tracer, log)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gw.channels.close(log); gw.store.Close() })
	out := map[string][]string{}
	for _, r := range gw.server.Routes() {
		if r.Method != echo.RouteNotFound && !slices.Contains(out[r.Path], r.Method) {
			out[r.Path] = append(out[r.Path], r.Method)
		}
	}
	return out
}
