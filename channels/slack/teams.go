package slack

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/botgw/botgw"
)

// team is who an event came from and who answers it: with installs, the
// installation (its id leads the chat key); with one bot token, that bot.
type team struct {
	id   string // the installation's id; empty with one bot token
	self identity
	api  *slack.Client
}

// eventTeams are the ids an event may be installed under, in order:
// team_id, the first authorization's team, the enterprise.
func eventTeams(ev slackevents.EventsAPIEvent) []string {
	ids := []string{ev.TeamID}
	if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok && len(cb.Authorizations) > 0 {
		ids = append(ids, cb.Authorizations[0].TeamID)
	}
	return append(ids, ev.EnterpriseID)
}

// tapTeams are the ids an interaction may be installed under.
func tapTeams(cb slack.InteractionCallback) []string {
	return []string{cb.Team.ID, cb.Enterprise.ID}
}

// teamOf finds who answers input from ids: one Redis read with installs.
// ok is false for a team with no installation; err when Redis failed (the
// platform is to retry).
func (a *adapter) teamOf(ctx context.Context, ids []string) (t team, ok bool, err error) {
	if a.installs == nil {
		return team{self: a.bot(), api: a.api}, true, nil
	}
	o, ok, err := a.installs.Lookup(ctx, ids...)
	if err != nil || !ok {
		return team{}, false, err
	}
	return team{id: o.inst.ID(), self: identity{UserID: o.inst.BotUserID}, api: o.api}, true, nil
}

// unknownTeam acknowledges and counts input of a workspace that has not
// installed the app (or has uninstalled it): nothing is stored.
func (a *adapter) unknownTeam() {
	a.app.count(statUnknownTeam)
	a.log.Debug("slack input of a workspace without an installation ignored")
}

// chatAPI is the client that answers chat k and where to: with installs,
// the chat's team's token, read once per call (an uninstall stops sends at
// once) and refreshed first when it is about to expire.
func (a *adapter) chatAPI(ctx context.Context, k botgw.ChatKey) (dest, *slack.Client, error) {
	to, ok := a.target(k)
	if !ok {
		return to, nil, &botgw.PlatformError{Channel: name, Permanent: true,
			Err: fmt.Errorf("chat %s: not a slack chat", k)}
	}
	if a.installs == nil {
		return to, a.api, nil
	}
	api, err := a.tokenFor(ctx, to.team)
	if errors.Is(err, errNoInstallation) {
		return to, nil, uninstalledError(k)
	}
	return to, api, err
}

// revokedCodes are the Web API errors that say the team's token is gone
// for good: its installation is deleted.
var revokedCodes = []string{"invalid_auth", "account_inactive", "token_revoked"}

// revoked deletes the installation of a team whose token the Web API
// refuses for good, and reports whether it did; err is then the
// "uninstalled" refusal of the reply.
func (a *adapter) revoked(ctx context.Context, teamID string, err error) bool {
	if a.installs == nil || teamID == "" {
		return false
	}
	for _, code := range revokedCodes {
		if isSlackError(err, code) {
			_, _ = a.uninstall(context.WithoutCancel(ctx), teamID, "web api: "+code)
			return true
		}
	}
	return false
}

// uninstalledError is the refusal of a reply to a team with no installation:
// permanent, kept as a dead letter with the reason "uninstalled".
func uninstalledError(k botgw.ChatKey) *botgw.PlatformError {
	return &botgw.PlatformError{Channel: name, Permanent: true, Reason: "uninstalled",
		Err: fmt.Errorf("chat %s: the workspace uninstalled the app", k)}
}

// uninstall deletes a team's installation at once and reports whether
// there was one; why is logged.
func (a *adapter) uninstall(ctx context.Context, id, why string) (bool, error) {
	gone, err := a.installs.Delete(ctx, id)
	if err != nil {
		a.log.Error("slack installation not deleted", "team", id, "why", why, "err", err)
		return false, err
	}
	if gone {
		a.app.count(statUninstall)
		a.log.Info("slack installation deleted", "team", id, "why", why)
	}
	return gone, nil
}

// uninstallEvent handles app_uninstalled and tokens_revoked (of the bot):
// the team's installation is deleted. It reports whether ev was one.
func (a *adapter) uninstallEvent(ctx context.Context, ev slackevents.EventsAPIEvent, t team) bool {
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.AppUninstalledEvent:
		_, _ = a.uninstall(ctx, t.id, "app_uninstalled")
		return true
	case *slackevents.TokensRevokedEvent:
		if len(e.Tokens.Bot) > 0 && (t.self.UserID == "" || slices.Contains(e.Tokens.Bot, t.self.UserID)) {
			_, _ = a.uninstall(ctx, t.id, "tokens_revoked")
		}
		return true
	}
	return false
}
