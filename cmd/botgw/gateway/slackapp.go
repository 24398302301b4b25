package gateway

import "errors"

// validateSlackApp checks what installs of the Slack app by OAuth need
// beyond the Slack section: the public URL the OAuth redirect is built on
// (docs/slack-app.md).
func (c Config) validateSlackApp() error {
	if s := c.Channels.Slack; s != nil && s.Installs() && c.PublicURL == "" {
		return errors.New("public_url: required with channels.slack.client_id (Slack sends installers back to <public_url>/webhooks/slack/oauth)")
	}
	return nil
}
