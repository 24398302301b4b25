package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/botgw/botgw/channels"
)

// authorizeURL is Slack's OAuth v2 consent page.
const authorizeURL = "https://slack.com/oauth/v2/authorize"

// openInstalls turns on installs by OAuth: the installation store on
// Redis, the redirect URL on the public URL.
func (a *adapter) openInstalls(env Env) error {
	if env.Redis == nil {
		return errors.New("slack: installs by OAuth need Redis")
	}
	if env.PublicURL == "" {
		return errors.New("public_url: required with channels.slack.client_id (Slack redirects installers to <public_url>" + a.routes.oauth + ")")
	}
	seal, err := newSealer(a.cfg.TokenKey, a.cfg.TokenKeyOld)
	if err != nil {
		return fmt.Errorf("channels.slack.%w", err)
	}
	a.installs = newInstallStore(env.Redis, env.KeyPrefix, seal, a.newClient)
	a.app = newAppState(strings.TrimSuffix(env.PublicURL, "/")+a.routes.oauth, channels.HTTPClient(httpTimeout))
	if a.cfg.BotToken != "" {
		a.log.Warn("channels.slack.bot_token is not used: workspaces install the app by OAuth (client_id)")
	}
	return nil
}

// mountInstall serves the install link and the OAuth redirect.
func (a *adapter) mountInstall(mux *http.ServeMux) {
	if a.installs == nil {
		return
	}
	mux.HandleFunc("GET "+a.routes.install, a.serveInstall)
	mux.HandleFunc("GET "+a.routes.oauth, a.serveOAuth)
}

// serveInstall answers GET /webhooks/slack/install: a redirect to Slack's
// consent page with a fresh single-use state.
func (a *adapter) serveInstall(w http.ResponseWriter, r *http.Request) {
	st, err := a.installs.NewState(r.Context())
	if err != nil {
		a.log.Error("slack install link", "err", err)
		writeError(w, http.StatusServiceUnavailable, "state: could not be kept; try again")
		return
	}
	q := url.Values{"client_id": {a.cfg.ClientID}, "scope": {strings.Join(a.cfg.Scopes, ",")},
		"redirect_uri": {a.app.redirectURI}, "state": {st}}
	http.Redirect(w, r, authorizeURL+"?"+q.Encode(), http.StatusFound)
}

// serveOAuth answers GET /webhooks/slack/oauth?code=&state=, where Slack
// sends the installer back: the state is used up, the code exchanged with
// oauth.v2.access, the installation stored (replacing the team's previous
// one). Anything wrong is a 400 naming it, with nothing stored; Slack is
// not called for a state that is unknown, used or expired.
func (a *adapter) serveOAuth(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		writeError(w, http.StatusBadRequest, "error: Slack says "+e+" (the install was not approved)")
		return
	}
	code := q.Get("code")
	if code == "" {
		writeError(w, http.StatusBadRequest, "code: missing (Slack adds it when it sends the installer back)")
		return
	}
	ok, err := a.installs.TakeState(r.Context(), q.Get("state"))
	if err != nil {
		a.log.Error("slack oauth state", "err", err)
		writeError(w, http.StatusServiceUnavailable, "state: could not be checked; try again")
		return
	}
	if !ok {
		writeError(w, http.StatusBadRequest, "state: unknown, used or expired (an install link works once, for 10 minutes; start again at "+a.routes.install+")")
		return
	}
	inst, status, msg := a.exchange(r.Context(), code)
	if status != http.StatusOK {
		writeError(w, status, msg)
		return
	}
	a.installed(w, r, inst)
}

// exchange trades an OAuth code for the installation, with oauth.v2.access
// on api_url. A refusal is a 400 naming Slack's error.
func (a *adapter) exchange(ctx context.Context, code string) (Installation, int, string) {
	resp, err := slack.GetOAuthV2ResponseContext(ctx, a.app.http, a.cfg.ClientID, a.cfg.ClientSecret, code,
		a.app.redirectURI, slack.OAuthOptionAPIURL(a.apiURL()))
	if se, ok := errors.AsType[slack.SlackErrorResponse](err); ok {
		a.log.Warn("slack install refused", "error", se.Err)
		return Installation{}, http.StatusBadRequest, "code: Slack refused it: " + se.Err
	}
	if err != nil {
		a.log.Error("slack oauth.v2.access", "err", err)
		return Installation{}, http.StatusBadGateway, "slack: oauth.v2.access failed; try again"
	}
	inst := installationOf(resp, time.Now())
	if inst.BotToken == "" || inst.ID() == "" {
		return Installation{}, http.StatusBadRequest, "scope: Slack gave no bot token (the app needs bot scopes)"
	}
	return inst, http.StatusOK, ""
}

// installationOf reads an oauth.v2.access answer.
func installationOf(resp *slack.OAuthV2Response, now time.Time) Installation {
	inst := Installation{TeamID: resp.Team.ID, TeamName: resp.Team.Name, EnterpriseID: resp.Enterprise.ID,
		OrgWide: resp.IsEnterpriseInstall, BotUserID: resp.BotUserID, InstalledBy: resp.AuthedUser.ID,
		InstalledAt: now.UTC(), BotToken: resp.AccessToken, RefreshToken: resp.RefreshToken}
	if inst.OrgWide && inst.TeamName == "" {
		inst.TeamName = resp.Enterprise.Name
	}
	for s := range strings.SplitSeq(resp.Scope, ",") {
		if s = strings.TrimSpace(s); s != "" {
			inst.Scopes = append(inst.Scopes, s)
		}
	}
	if resp.ExpiresIn > 0 {
		inst.ExpiresAt = now.Add(time.Duration(resp.ExpiresIn) * time.Second).UTC()
	}
	return inst
}

// installed stores the installation and sends the installer on.
func (a *adapter) installed(w http.ResponseWriter, r *http.Request, inst Installation) {
	if err := a.installs.Save(r.Context(), inst); err != nil {
		a.log.Error("slack install not stored", "err", err)
		writeError(w, http.StatusServiceUnavailable, "installation: could not be stored; install again")
		return
	}
	a.app.count(statInstall)
	a.log.Info("slack app installed", "team", inst.ID(), "org_wide", inst.OrgWide)
	if a.cfg.InstallRedirect != "" {
		http.Redirect(w, r, a.cfg.InstallRedirect, http.StatusFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, "<!doctype html><title>Installed</title><p>The app is installed in "+
		html.EscapeString(inst.TeamName)+". You can close this page.</p>")
}

// apiURL is the Web API base the OAuth calls go to.
func (a *adapter) apiURL() string {
	if a.cfg.APIURL != "" {
		return a.cfg.APIURL
	}
	return slack.APIURL
}

// writeError answers {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
