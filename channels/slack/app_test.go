package slack

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

func TestAppInstallLinkAsksSlackForTheScopes(t *testing.T) {
	r := newAppRig(t)
	a := r.replica(t, appConfig(r.f))
	w := get(a.WebhookHandler(nil), "/webhooks/slack/install")
	u, _ := url.Parse(w.Header().Get("Location"))
	q := u.Query()
	if w.Code != http.StatusFound || u.Host != "slack.com" || u.Path != "/oauth/v2/authorize" {
		t.Fatalf("install link: %d to %s, want 302 to Slack's authorize page", w.Code, u)
	}
	if q.Get("client_id") != testClientID || q.Get("redirect_uri") != testRedirectURI ||
		q.Get("scope") != strings.Join(defaultScopes, ",") || len(q.Get("state")) < 32 {
		t.Errorf("authorize query = %v", q)
	}
}

func TestAppTwoTeamsAreEachAnsweredWithTheirOwnToken(t *testing.T) {
	r := newAppRig(t)
	a, b := r.replica(t, appConfig(r.f)), r.replica(t, appConfig(r.f))
	ha, hb := a.WebhookHandler(nil), b.WebhookHandler(nil)
	r.install(t, ha, hb, "code-one", grant("T0ONE")) // state made on A, finished on B
	r.install(t, hb, ha, "code-two", grant("T0TWO"))
	rec := &channeltest.Store{}
	h := a.WebhookHandler(rec.Deliver)
	for _, team := range []string{"T0ONE", "T0TWO"} {
		if code := postEvent(h, dmEvent(team, "D0"+team, "1700000001.000100", "hello from "+team)); code != http.StatusOK {
			t.Fatalf("event of %s: %d", team, code)
		}
	}
	got := rec.Stored()
	if len(got) != 2 || got[0].Chat.String() != "slack:T0ONE/D0T0ONE" || got[1].Chat.String() != "slack:T0TWO/D0T0TWO" {
		t.Fatalf("stored %v, want one chat per team keyed slack:<team>/<channel>", got)
	}
	for _, in := range got {
		if err := b.Send(t.Context(), botgw.Outbound{ID: "r-" + in.ID, Chat: in.Chat, Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	posts := r.f.CallsTo("chat.postMessage")
	if len(posts) != 2 || posts[0].Token != "xoxb-T0ONE-secret-token" || posts[1].Token != "xoxb-T0TWO-secret-token" {
		t.Errorf("posts = %+v, want each team answered with its own token", posts)
	}
	if vals := r.allValues(t); strings.Contains(vals, "secret-token") || !strings.Contains(vals, "T0ONE") {
		t.Errorf("Redis holds a token in clear (or no installation):\n%s", vals)
	}
}

func TestAppOAuthRefusesABadStateWithoutCallingSlack(t *testing.T) {
	r := newAppRig(t)
	h := r.replica(t, appConfig(r.f)).WebhookHandler(nil)
	r.f.AddInstall("code-one", grant("T0ONE"))
	used := installLink(t, h)
	if w := get(h, "/webhooks/slack/oauth?code=code-one&state="+used); w.Code != http.StatusFound {
		t.Fatalf("first use of the state: %d %s", w.Code, w.Body)
	}
	calls := len(r.f.CallsTo("oauth.v2.access"))
	expired := installLink(t, h)
	r.mr.FastForward(stateTTL + time.Second)
	for name, st := range map[string]string{"forged": "0123456789abcdef0123456789abcdef", "reused": used, "expired": expired, "absent": ""} {
		r.f.AddInstall("code-two", grant("T0TWO"))
		w := get(h, "/webhooks/slack/oauth?code=code-two&state="+st)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"state: unknown, used or expired`) {
			t.Errorf("%s state: %d %s, want 400 naming the state", name, w.Code, w.Body)
		}
	}
	if n := len(r.f.CallsTo("oauth.v2.access")); n != calls {
		t.Errorf("Slack called %d times for bad states", n-calls)
	}
	if n := r.rdb.HLen(t.Context(), "botgw:slack:{installs}").Val(); n != 1 {
		t.Errorf("%d installations stored, want only the good one", n)
	}
}

func TestAppOAuthBadInputIsA400NamingItAndStoresNothing(t *testing.T) {
	r := newAppRig(t)
	cfg := appConfig(r.f)
	h := r.replica(t, cfg).WebhookHandler(nil)
	r.f.AddInstall("code-one", grant("T0ONE"))
	if w := get(h, "/webhooks/slack/oauth?state="+installLink(t, h)); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"code: missing`) {
		t.Errorf("no code: %d %s, want 400 naming code", w.Code, w.Body)
	}
	if w := get(h, "/webhooks/slack/oauth?code=never-issued&state="+installLink(t, h)); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "invalid_code") {
		t.Errorf("unknown code: %d %s, want 400 naming invalid_code", w.Code, w.Body)
	}
	r.f.OAuthApp(testClientID, testClientSecret, "https://elsewhere.example.com/oauth")
	if w := get(h, "/webhooks/slack/oauth?code=code-one&state="+installLink(t, h)); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "bad_redirect_uri") {
		t.Errorf("redirect URL not the app's: %d %s, want 400 naming bad_redirect_uri", w.Code, w.Body)
	}
	if n := r.rdb.HLen(t.Context(), "botgw:slack:{installs}").Val(); n != 0 {
		t.Errorf("%d installations stored after refusals", n)
	}
}

func TestAppEventOfATeamWithoutInstallationIsAcknowledgedAndCounted(t *testing.T) {
	r := newAppRig(t)
	a := r.replica(t, appConfig(r.f))
	rec := &channeltest.Store{}
	if code := postEvent(a.WebhookHandler(rec.Deliver), dmEvent("T0NONE", "D0NONE", "1700000001.000100", "hi")); code != http.StatusOK {
		t.Fatalf("event of an unknown team: %d, want 200", code)
	}
	if rec.Calls() != 0 || a.EventCounts()[statUnknownTeam] != 1 {
		t.Errorf("stored %d, counted %v; want nothing stored and one unknown_team", rec.Calls(), a.EventCounts())
	}
}

func TestAppUninstallStopsSendsAtOnce(t *testing.T) {
	for _, how := range []string{"app_uninstalled", "tokens_revoked", "invalid_auth"} {
		t.Run(how, func(t *testing.T) {
			r := newAppRig(t)
			a, b := r.replica(t, appConfig(r.f)), r.replica(t, appConfig(r.f))
			r.install(t, a.WebhookHandler(nil), a.WebhookHandler(nil), "code-one", grant("T0ONE"))
			chat := botgw.ChatKey{Channel: "slack", ID: "T0ONE/D0ONE"}
			if err := b.Send(t.Context(), botgw.Outbound{ID: "r1", Chat: chat, Text: "hi"}); err != nil { // b caches the token
				t.Fatal(err)
			}
			switch how {
			case "app_uninstalled":
				postEvent(a.WebhookHandler(nil), innerEvent("T0ONE", `{"type":"app_uninstalled"}`))
			case "tokens_revoked":
				postEvent(a.WebhookHandler(nil), innerEvent("T0ONE", `{"type":"tokens_revoked","tokens":{"bot":["UBOTT0ONE"]}}`))
			default:
				r.f.Revoke("xoxb-T0ONE-secret-token")
			}
			err := b.Send(t.Context(), botgw.Outbound{ID: "r2", Chat: chat, Text: "still there?"})
			err2 := b.Send(t.Context(), botgw.Outbound{ID: "r3", Chat: chat, Text: "and now?"})
			for _, err := range []error{err, err2} {
				if pe, ok := errors.AsType[*botgw.PlatformError](err); !ok || !pe.Permanent || pe.Reason != "uninstalled" {
					t.Errorf("send after %s: %v, want a permanent refusal with reason uninstalled", how, err)
				}
			}
			if posts := len(r.f.CallsTo("chat.postMessage")); posts != 1+boolInt(how == "invalid_auth") {
				t.Errorf("%d posts, want none after the uninstall was known", posts)
			}
			if n := r.rdb.HLen(t.Context(), "botgw:slack:{installs}").Val(); n != 0 || a.EventCounts()[statUninstall]+b.EventCounts()[statUninstall] != 1 {
				t.Errorf("%d installations left, counts %v %v", n, a.EventCounts(), b.EventCounts())
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestAppAdminListsInstallationsWithoutTokensAndDeletes(t *testing.T) {
	r := newAppRig(t)
	a := r.replica(t, appConfig(r.f))
	r.install(t, a.WebhookHandler(nil), a.WebhookHandler(nil), "code-one", grant("T0ONE"))
	r.install(t, a.WebhookHandler(nil), a.WebhookHandler(nil), "code-two", grant("T0TWO"))
	admin := a.AdminHandler()
	w := get(admin, "/v1/admin/slack/installations")
	var body struct {
		Installations []map[string]any `json:"installations"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || len(body.Installations) != 2 {
		t.Fatalf("list: %d %s", w.Code, w.Body)
	}
	one := body.Installations[0]
	for _, k := range []string{"team_id", "team_name", "enterprise_id", "bot_user_id", "scopes", "installed_at", "installed_by"} {
		if _, ok := one[k]; !ok {
			t.Errorf("installation lacks %s: %v", k, one)
		}
	}
	if one["team_id"] != "T0ONE" || one["installed_by"] != "UADMINT0ONE" || strings.Contains(w.Body.String(), "xoxb") {
		t.Errorf("list = %s", w.Body)
	}
	del := httptest.NewRecorder()
	admin.ServeHTTP(del, httptest.NewRequest(http.MethodDelete, "/v1/admin/slack/installations/T0ONE", nil))
	again := httptest.NewRecorder()
	admin.ServeHTTP(again, httptest.NewRequest(http.MethodDelete, "/v1/admin/slack/installations/T0ONE", nil))
	if del.Code != http.StatusNoContent || again.Code != http.StatusNotFound {
		t.Errorf("delete: %d then %d, want 204 then 404", del.Code, again.Code)
	}
	err := a.Send(t.Context(), botgw.Outbound{ID: "r1", Chat: botgw.ChatKey{Channel: "slack", ID: "T0ONE/D0ONE"}, Text: "hi"})
	if pe, ok := errors.AsType[*botgw.PlatformError](err); !ok || pe.Reason != "uninstalled" {
		t.Errorf("send after delete: %v", err)
	}
}
