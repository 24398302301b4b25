package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/state/redistest"
)

const (
	appClientID     = "1234567890.0987654321"
	appClientSecret = "e2e-client-secret"
	appPublicURL    = "https://bot.example.com"
	appTokenKey     = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=" // 32 bytes
)

// slackAppReplicas are two replicas of the built binary on one real Redis,
// serving a Slack app that workspaces install by OAuth against api.
func slackAppReplicas(t *testing.T, api *channeltest.SlackAPI) (redisURL, prefix string, a, b *replica) {
	t.Helper()
	redisURL = redistest.URL(t)
	rnd := make([]byte, 4)
	_, _ = rand.Read(rnd)
	prefix = "slackapp" + hex.EncodeToString(rnd)
	t.Cleanup(func() { redistest.Drop(t, redisURL, prefix) }) // after the replicas stop
	api.OAuthApp(appClientID, appClientSecret, appPublicURL+"/webhooks/slack/oauth")
	cfg := fmt.Sprintf(`
redis: {url: %s, key_prefix: %s}
public_url: %s
provider: {kind: fake}
channels:
  slack: {signing_secret: e2e-signing-secret, api_url: %q, client_id: %q, client_secret: %s, token_key: %s, thinking_reaction: none}
admin: {token: %s}
log: {level: debug, format: text}
`, redisURL, prefix, appPublicURL, api.URL, appClientID, appClientSecret, appTokenKey, faultAdminToken)
	return redisURL, prefix, startReplica(t, "a", cfg), startReplica(t, "b", cfg)
}

// getNoRedirect answers a GET without following a redirect.
func getNoRedirect(t *testing.T, u string) (*http.Response, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// appInstall opens the install link on from and finishes the install of
// code on to, as a browser would; it returns the state used.
func appInstall(t *testing.T, from, to *replica, code string) (state string, status int, body string) {
	t.Helper()
	res, _ := getNoRedirect(t, from.base+"/webhooks/slack/install")
	loc, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || loc.Host != "slack.com" {
		t.Fatalf("install link: %d %s", res.StatusCode, loc)
	}
	state = loc.Query().Get("state")
	res, body = getNoRedirect(t, to.base+"/webhooks/slack/oauth?code="+code+"&state="+state)
	return state, res.StatusCode, body
}

func appGrant(team string) channeltest.SlackGrant {
	return channeltest.SlackGrant{TeamID: team, TeamName: "Team " + team, BotToken: "xoxb-" + team + "-e2e-secret",
		BotUserID: "UBOT" + team, InstalledBy: "UADMIN" + team, Scope: "app_mentions:read,chat:write,im:history"}
}

// appDM is a direct message event of team as the Events API posts it.
func appDM(team, ts, text string) string { return appDMIn(team, "D0"+team, ts, text) }

// appDMIn is a direct message event of team in channel.
func appDMIn(team, channel, ts, text string) string {
	return fmt.Sprintf(`{"token":"x","team_id":%q,"api_app_id":"A0KRD7HC3","type":"event_callback","event_id":"Ev%s%s",`+
		`"event_time":1700000000,"event":{"type":"message","channel_type":"im","channel":%q,"user":"UPLAYER1",`+
		`"text":%q,"ts":%q,"event_ts":%q},"authorizations":[{"team_id":%q,"user_id":"UBOT%s","is_bot":true}]}`,
		team, team, strings.ReplaceAll(ts, ".", ""), channel, text, ts, ts, team, team)
}

func postsBy(api *channeltest.SlackAPI, token string) int {
	n := 0
	for _, c := range api.CallsTo("chat.postMessage") {
		if c.Token == token {
			n++
		}
	}
	return n
}

// TestBinarySlackAppInstalledInTwoWorkspaces: two workspaces install the
// app (one install finished on another replica than the one that made its
// state) and each is answered with its own token; bad states, a missing
// code and Slack's refusal are 400s that store nothing; an event of a
// workspace without an installation is acknowledged and counted; after
// app_uninstalled nothing more is sent to that workspace; no token is in
// Redis, the logs or the admin answer.
func TestBinarySlackAppInstalledInTwoWorkspaces(t *testing.T) {
	api := channeltest.NewSlackAPI(t, "xoxb-not-used", "", "", "")
	redisURL, prefix, a, b := slackAppReplicas(t, api)
	api.AddInstall("code-one", appGrant("T0ONE"))
	api.AddInstall("code-two", appGrant("T0TWO"))
	used, status, body := appInstall(t, a, b, "code-one")
	if status != http.StatusOK || !strings.Contains(body, "Team T0ONE") {
		t.Fatalf("install finished on b from a's state: %d %s, want the success page (no install_redirect)", status, body)
	}
	if _, status, body = appInstall(t, b, b, "code-two"); status != http.StatusOK || !strings.Contains(body, "Team T0TWO") {
		t.Fatalf("second install: %d %s, want the success page", status, body)
	}
	oauthCalls := len(api.CallsTo("oauth.v2.access"))
	for name, q := range map[string]string{"forged state": "code=x&state=00ff00ff00ff00ff", "reused state": "code=code-one&state=" + used,
		"no code": "state=" + used} {
		if res, body := getNoRedirect(t, a.base+"/webhooks/slack/oauth?"+q); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"error"`) {
			t.Errorf("%s: %d %s, want 400 with an error", name, res.StatusCode, body)
		}
	}
	if _, status, body = appInstall(t, a, a, "never-issued"); status != http.StatusBadRequest || !strings.Contains(body, "invalid_code") {
		t.Errorf("a code Slack refuses: %d %s, want 400 naming invalid_code", status, body)
	}
	if n := len(api.CallsTo("oauth.v2.access")); n != oauthCalls+1 {
		t.Errorf("Slack called %d times for 4 bad callbacks, want once (the refused code)", n-oauthCalls)
	}

	for i, team := range []string{"T0ONE", "T0TWO"} {
		r := []*replica{a, b}[i]
		if code := postSlackTo(r.base+"/webhooks/slack/events", "application/json", appDM(team, "1700000001.000100", "hello"), "e2e-signing-secret", time.Now()); code != http.StatusOK {
			t.Fatalf("event of %s: %d", team, code)
		}
	}
	wait.Eventually(t, "both workspaces answered", func() bool {
		return postsBy(api, "xoxb-T0ONE-e2e-secret") == 1 && postsBy(api, "xoxb-T0TWO-e2e-secret") == 1
	})
	if code := postSlackTo(b.base+"/webhooks/slack/events", "application/json", appDM("T0NONE", "1700000002.000100", "hi"), "e2e-signing-secret", time.Now()); code != http.StatusOK {
		t.Errorf("event of a workspace without an installation: %d, want 200", code)
	}
	if m := metricsText(b.base); !strings.Contains(m, `botgw_channel_events_total{channel="slack",event="unknown_team"} 1`) {
		t.Errorf("unknown team not counted:\n%s", grepLines(m, "channel_events"))
	}

	// The workspace uninstalls: its next message is acknowledged, not answered.
	postSlackTo(a.base+"/webhooks/slack/events", "application/json",
		`{"token":"x","team_id":"T0ONE","type":"event_callback","event_id":"EvU1","event_time":1700000003,"event":{"type":"app_uninstalled"}}`,
		"e2e-signing-secret", time.Now())
	if code := postSlackTo(b.base+"/webhooks/slack/events", "application/json", appDM("T0ONE", "1700000004.000100", "still there?"), "e2e-signing-secret", time.Now()); code != http.StatusOK {
		t.Errorf("event after the uninstall: %d, want 200", code)
	}
	if code := postSlackTo(a.base+"/webhooks/slack/events", "application/json", appDM("T0TWO", "1700000005.000100", "and us?"), "e2e-signing-secret", time.Now()); code != http.StatusOK {
		t.Fatal(code)
	}
	wait.Eventually(t, "the other workspace answered again", func() bool { return postsBy(api, "xoxb-T0TWO-e2e-secret") == 2 })
	if n := postsBy(api, "xoxb-T0ONE-e2e-secret"); n != 1 {
		t.Errorf("%d posts to the uninstalled workspace, want only the one before", n)
	}

	res, err := adminGet(b.base + "/v1/admin/slack/installations")
	if err != nil || !strings.Contains(res, `"team_id":"T0TWO"`) || strings.Contains(res, "T0ONE") {
		t.Errorf("installations = %s (%v), want T0TWO only", res, err)
	}
	for where, text := range map[string]string{"admin answer": res, "replica a's log": a.logs.String(),
		"replica b's log": b.logs.String(), "Redis": redisValues(t, redisURL, prefix)} {
		if strings.Contains(text, "e2e-secret") || strings.Contains(text, appClientSecret) {
			t.Errorf("a token or the client secret is in the %s", where)
		}
	}
}

func adminGet(u string) (string, error) {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer "+faultAdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

// redisValues is every value under prefix, whatever its type, as text.
func redisValues(t *testing.T, redisURL, prefix string) string {
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx := context.Background()
	var b strings.Builder
	iter := c.Scan(ctx, 0, prefix+":*", 1000).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		switch c.Type(ctx, k).Val() {
		case "string":
			b.WriteString(c.Get(ctx, k).Val())
		case "hash":
			fmt.Fprint(&b, c.HGetAll(ctx, k).Val())
		case "list":
			fmt.Fprint(&b, c.LRange(ctx, k, 0, -1).Val())
		case "set":
			fmt.Fprint(&b, c.SMembers(ctx, k).Val())
		case "zset":
			fmt.Fprint(&b, c.ZRange(ctx, k, 0, -1).Val())
		case "stream":
			fmt.Fprint(&b, c.XRange(ctx, k, "-", "+").Val())
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		t.Fatal("nothing in Redis under the prefix")
	}
	return b.String()
}

func refreshCalls(api *channeltest.SlackAPI) int {
	n := 0
	for _, c := range api.CallsTo("oauth.v2.access") {
		if c.Params["grant_type"] == "refresh_token" {
			n++
		}
	}
	return n
}

// TestBinarySlackAppTokenRefreshedOnceWhileBothReplicasSend: a rotating
// token close to its expiry is refreshed by one replica while the other
// keeps sending with it; then both send with the new token.
func TestBinarySlackAppTokenRefreshedOnceWhileBothReplicasSend(t *testing.T) {
	api := channeltest.NewSlackAPI(t, "xoxb-not-used", "", "", "")
	_, _, a, b := slackAppReplicas(t, api)
	g := appGrant("T0ROT")
	g.RefreshToken, g.ExpiresIn = "xoxe-1-e2e-refresh-one", 300 // due: refreshed 10 minutes ahead
	next := appGrant("T0ROT")
	next.BotToken, next.RefreshToken, next.ExpiresIn = "xoxe.xoxb-T0ROT-e2e-rotated", "xoxe-1-e2e-refresh-two", 43200
	api.AddInstall("code-rot", g)
	api.AddRefresh(g.RefreshToken, next)
	release := api.HoldRefreshes()
	if _, status, body := appInstall(t, a, b, "code-rot"); status != http.StatusOK {
		t.Fatalf("install: %d %s", status, body)
	}
	dm := func(r *replica, ts string) { // each replica's player in a chat of their own
		t.Helper()
		body := appDMIn("T0ROT", "D0"+strings.ToUpper(r.name), ts, "hi")
		if code := postSlackTo(r.base+"/webhooks/slack/events", "application/json", body, "e2e-signing-secret", time.Now()); code != http.StatusOK {
			t.Fatalf("event: %d", code)
		}
	}
	dm(a, "1700000001.000100")
	wait.Eventually(t, "a refresh under way", func() bool { return refreshCalls(api) >= 1 })
	dm(b, "1700000002.000100")
	wait.Eventually(t, "the other replica sending with the token meanwhile, or a second refresh", func() bool {
		return postsBy(api, g.BotToken) >= 1 || refreshCalls(api) > 1
	})
	release()
	wait.Eventually(t, "both answered", func() bool { return postsBy(api, g.BotToken)+postsBy(api, next.BotToken) == 2 })
	dm(a, "1700000003.000100")
	dm(b, "1700000004.000100")
	wait.Eventually(t, "both answered with the new token", func() bool { return postsBy(api, next.BotToken) >= 3 })
	if n := refreshCalls(api); n != 1 {
		t.Errorf("%d refreshes, want one for both replicas", n)
	}
	for _, r := range []*replica{a, b} {
		if strings.Contains(r.logs.String(), "e2e-rotated") || strings.Contains(r.logs.String(), "e2e-refresh") {
			t.Errorf("replica %s logged a token", r.name)
		}
	}
}
