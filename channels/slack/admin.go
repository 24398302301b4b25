package slack

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"
)

// adminBase is where the channel's admin routes live, behind the admin
// token (docs/http-api.md).
const adminBase = "/v1/admin/slack/installations"

// installationView is one installation in GET /v1/admin/slack/installations:
// never a token.
type installationView struct {
	TeamID         string    `json:"team_id"`
	TeamName       string    `json:"team_name"`
	EnterpriseID   string    `json:"enterprise_id"`
	OrgWide        bool      `json:"org_wide,omitempty"`
	BotUserID      string    `json:"bot_user_id"`
	Scopes         []string  `json:"scopes"`
	InstalledAt    time.Time `json:"installed_at"`
	InstalledBy    string    `json:"installed_by"`
	TokenExpiresAt time.Time `json:"token_expires_at,omitzero"`
	RefreshError   string    `json:"refresh_error,omitempty"`
}

// adminHandler serves the installations' admin routes.
func (a *adapter) adminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+adminBase, a.listInstallations)
	mux.HandleFunc("DELETE "+adminBase+"/{team}", a.deleteInstallation)
	return mux
}

// listInstallations answers {"installations": [...]}, by team id.
func (a *adapter) listInstallations(w http.ResponseWriter, r *http.Request) {
	all, err := a.installs.All(r.Context())
	if err != nil {
		a.log.Error("list slack installations", "err", err)
		writeError(w, http.StatusServiceUnavailable, "installations: could not be read")
		return
	}
	out := []installationView{}
	for id, raw := range all {
		var rec record
		if json.Unmarshal([]byte(raw), &rec) != nil {
			continue
		}
		out = append(out, installationView{TeamID: id, TeamName: rec.TeamName, EnterpriseID: rec.EnterpriseID,
			OrgWide: rec.OrgWide, BotUserID: rec.BotUserID, Scopes: rec.Scopes, InstalledAt: rec.InstalledAt,
			InstalledBy: rec.InstalledBy, TokenExpiresAt: rec.ExpiresAt, RefreshError: rec.RefreshError})
	}
	slices.SortFunc(out, func(x, y installationView) int { return strings.Compare(x.TeamID, y.TeamID) })
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"installations": out})
}

// deleteInstallation deletes a team's installation as an uninstall does:
// nothing more is sent to it; 404 when it has none.
func (a *adapter) deleteInstallation(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("team")
	gone, err := a.uninstall(r.Context(), id, "admin")
	switch {
	case err != nil:
		writeError(w, http.StatusServiceUnavailable, "installations: could not be changed")
	case !gone:
		writeError(w, http.StatusNotFound, "team: no installation of "+id)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}
