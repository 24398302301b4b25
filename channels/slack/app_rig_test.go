package slack

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	goredis "github.com/redis/go-redis/v9"

	"github.com/botgw/botgw/channels/channeltest"
)

const (
	testClientID     = "1234567890.0987654321"
	testClientSecret = "app-client-secret-0123"
	testPublicURL    = "https://bot.example.com"
	testRedirectURI  = testPublicURL + "/webhooks/slack/oauth"
)

var (
	testTokenKey = base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	otherKey     = base64.StdEncoding.EncodeToString([]byte("fedcba9876543210fedcba9876543210"))
)

// appRig is the fake Slack and one Redis that replicas of an app share.
type appRig struct {
	f   *channeltest.SlackAPI
	mr  *miniredis.Miniredis
	rdb *goredis.Client
}

func newAppRig(t *testing.T) *appRig {
	f := channeltest.NewSlackAPI(t, "xoxb-not-used", "", "", "")
	f.OAuthApp(testClientID, testClientSecret, testRedirectURI)
	mr := miniredis.RunT(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	return &appRig{f: f, mr: mr, rdb: rdb}
}

func appConfig(f *channeltest.SlackAPI) Config {
	return Config{SigningSecret: testSecret, APIURL: f.URL, ClientID: testClientID, ClientSecret: testClientSecret,
		TokenKey: testTokenKey, InstallRedirect: "https://game.example.com/installed", ThinkingReaction: "none"}
}

// replica is one gateway replica's Slack channel of the app, started.
func (r *appRig) replica(t *testing.T, cfg Config) *eventsAppChannel {
	t.Helper()
	ch, err := New(cfg, Env{Pacer: testPacer(t), Redis: r.rdb, KeyPrefix: "botgw", PublicURL: testPublicURL}, discard())
	if err != nil {
		t.Fatal(err)
	}
	c := ch.(*eventsAppChannel)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// get serves a GET through the channel's webhook handler.
func get(h http.Handler, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w
}

// installLink opens the install link and returns the state Slack would
// send back.
func installLink(t *testing.T, h http.Handler) string {
	t.Helper()
	w := get(h, "/webhooks/slack/install")
	if w.Code != http.StatusFound {
		t.Fatalf("install link: %d, want 302", w.Code)
	}
	u, err := url.Parse(w.Header().Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("state")
}

// install runs the whole install of grant g: the link on from, the
// redirect back on to.
func (r *appRig) install(t *testing.T, from, to http.Handler, code string, g channeltest.SlackGrant) {
	t.Helper()
	r.f.AddInstall(code, g)
	st := installLink(t, from)
	w := get(to, "/webhooks/slack/oauth?code="+code+"&state="+st)
	if w.Code != http.StatusFound || w.Header().Get("Location") != "https://game.example.com/installed" {
		t.Fatalf("oauth redirect: %d %s %s, want 302 to install_redirect", w.Code, w.Header().Get("Location"), w.Body)
	}
}

func grant(team string) channeltest.SlackGrant {
	return channeltest.SlackGrant{TeamID: team, TeamName: "Team " + team, BotToken: "xoxb-" + team + "-secret-token",
		BotUserID: "UBOT" + team, InstalledBy: "UADMIN" + team, Scope: "app_mentions:read,chat:write,im:history"}
}

// dmEvent is a direct message event of team, as the Events API posts it.
func dmEvent(team, channel, ts, text string) []byte {
	return fmt.Appendf(nil, `{"token":"x","team_id":%q,"api_app_id":"A0KRD7HC3","type":"event_callback",`+
		`"event_id":"Ev%s","event_time":1700000000,"event":{"type":"message","channel_type":"im","channel":%q,`+
		`"user":"UPLAYER1","text":%q,"ts":%q,"event_ts":%q},"authorizations":[{"team_id":%q,"user_id":"UBOT%s","is_bot":true}]}`,
		team, strings.ReplaceAll(ts, ".", ""), channel, text, ts, ts, team, team)
}

// innerEvent is an event_callback of team carrying inner.
func innerEvent(team, inner string) []byte {
	return fmt.Appendf(nil, `{"token":"x","team_id":%q,"api_app_id":"A0KRD7HC3","type":"event_callback",`+
		`"event_id":"EvX%s","event_time":1700000000,"event":%s}`, team, team, inner)
}

// postEvent posts a signed Events API body and returns the status.
func postEvent(h http.Handler, body []byte) int {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, signedRequestNow(body))
	return w.Code
}

// allValues is every value Redis holds, for a search for secrets.
func (r *appRig) allValues(t *testing.T) string {
	var b strings.Builder
	for _, k := range r.mr.Keys() {
		switch r.mr.Type(k) {
		case "hash":
			fields, _ := r.mr.HKeys(k)
			for _, f := range fields {
				b.WriteString(k + " " + f + " " + r.mr.HGet(k, f) + "\n")
			}
		case "string":
			v, _ := r.mr.Get(k)
			b.WriteString(k + " " + v + "\n")
		default:
			b.WriteString(k + "\n")
		}
	}
	return b.String()
}

func signedRequestNow(body []byte) *http.Request { return signedRequest(body, time.Now(), testSecret) }
