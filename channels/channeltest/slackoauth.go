package channeltest

import (
	"encoding/json"
	"net/http"
	"net/url"
)

// SlackGrant is what oauth.v2.access hands out for one workspace's
// install (or one refresh of its token).
type SlackGrant struct {
	TeamID, TeamName, EnterpriseID string
	OrgWide                        bool
	BotToken, BotUserID            string
	RefreshToken                   string // with token rotation
	ExpiresIn                      int    // seconds; with token rotation
	InstalledBy, Scope             string
}

// slackOAuth is the fake's side of OAuth v2: the app's credentials, the
// codes and refresh tokens it honours once each, the tokens it issued.
type slackOAuth struct {
	clientID, clientSecret, redirectURI string
	codes, refreshes                    map[string]SlackGrant
	tokens                              map[string]bool // bot tokens issued and not revoked
	gate                                chan struct{}   // refreshes wait for it to close
}

// HoldRefreshes makes token refreshes wait, seen in CallsTo but not
// answered, until release is called.
func (f *SlackAPI) HoldRefreshes() (release func()) {
	gate := make(chan struct{})
	f.mu.Lock()
	f.oauth.gate = gate
	f.mu.Unlock()
	return func() { close(gate) }
}

// OAuthApp makes oauth.v2.access check the app's credentials and, when
// not empty, that redirect_uri is redirectURI (else bad_redirect_uri).
func (f *SlackAPI) OAuthApp(clientID, clientSecret, redirectURI string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.oauth.clientID, f.oauth.clientSecret, f.oauth.redirectURI = clientID, clientSecret, redirectURI
}

// AddInstall makes oauth.v2.access trade code, once, for g; g.BotToken is
// then accepted by the Web API until Revoke.
func (f *SlackAPI) AddInstall(code string, g SlackGrant) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.oauth.init()
	f.oauth.codes[code] = g
}

// AddRefresh makes oauth.v2.access (grant_type=refresh_token) trade
// refreshToken, once, for next; the old token stays valid.
func (f *SlackAPI) AddRefresh(refreshToken string, next SlackGrant) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.oauth.init()
	f.oauth.refreshes[refreshToken] = next
}

// Revoke makes the Web API refuse token with token_revoked.
func (f *SlackAPI) Revoke(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.oauth.init()
	f.oauth.tokens[token] = false
}

func (o *slackOAuth) init() {
	if o.codes == nil {
		o.codes, o.refreshes, o.tokens = map[string]SlackGrant{}, map[string]SlackGrant{}, map[string]bool{}
	}
}

// issued reports whether token is one oauth.v2.access handed out, and
// whether it is still good.
func (f *SlackAPI) issued(token string) (known, good bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	good, known = f.oauth.tokens[token]
	return known, good
}

// oauthAccess answers oauth.v2.access as Slack does.
func (f *SlackAPI) oauthAccess(w http.ResponseWriter, form url.Values) {
	f.mu.Lock()
	gate := f.oauth.gate
	f.mu.Unlock()
	if gate != nil && form.Get("grant_type") == "refresh_token" {
		<-gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	o := &f.oauth
	o.init()
	if form.Get("client_id") != o.clientID || form.Get("client_secret") != o.clientSecret {
		writeSlack(w, http.StatusOK, `{"ok":false,"error":"invalid_client_id"}`)
		return
	}
	var g SlackGrant
	var ok bool
	if form.Get("grant_type") == "refresh_token" {
		if g, ok = o.refreshes[form.Get("refresh_token")]; !ok {
			writeSlack(w, http.StatusOK, `{"ok":false,"error":"invalid_refresh_token"}`)
			return
		}
		delete(o.refreshes, form.Get("refresh_token"))
	} else {
		if o.redirectURI != "" && form.Get("redirect_uri") != o.redirectURI {
			writeSlack(w, http.StatusOK, `{"ok":false,"error":"bad_redirect_uri"}`)
			return
		}
		if g, ok = o.codes[form.Get("code")]; !ok {
			writeSlack(w, http.StatusOK, `{"ok":false,"error":"invalid_code"}`)
			return
		}
		delete(o.codes, form.Get("code"))
	}
	o.tokens[g.BotToken] = true
	writeSlack(w, http.StatusOK, grantJSON(g))
}

func grantJSON(g SlackGrant) string {
	m := map[string]any{"ok": true, "access_token": g.BotToken, "token_type": "bot", "scope": g.Scope,
		"bot_user_id": g.BotUserID, "app_id": "A0KRD7HC3", "is_enterprise_install": g.OrgWide,
		"authed_user": map[string]any{"id": g.InstalledBy}}
	if g.TeamID != "" {
		m["team"] = map[string]any{"id": g.TeamID, "name": g.TeamName}
	}
	if g.EnterpriseID != "" {
		m["enterprise"] = map[string]any{"id": g.EnterpriseID, "name": g.TeamName}
	}
	if g.RefreshToken != "" {
		m["refresh_token"], m["expires_in"] = g.RefreshToken, g.ExpiresIn
	}
	b, _ := json.Marshal(m)
	return string(b)
}
