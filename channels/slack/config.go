package slack

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Receive modes.
const (
	ModeEvents = "events" // Events API over HTTPS at /webhooks/slack/events
	ModeSocket = "socket" // Socket Mode: a websocket opened by the gateway
)

// defaultReaction is the emoji shown on a message while its reply is written.
const defaultReaction = "hourglass_flowing_sand"

// Config is the channels.slack section of the gateway's config.
type Config struct {
	// BotToken is the bot user OAuth token (xoxb-…).
	BotToken string `yaml:"bot_token"`
	// SigningSecret verifies Events API requests; required in events mode.
	SigningSecret string `yaml:"signing_secret"`
	// Mode is events (default) or socket.
	Mode string `yaml:"mode"`
	// AppToken is the app-level token (xapp-…, scope connections:write);
	// required in socket mode.
	AppToken string `yaml:"app_token"`
	// APIURL is the Web API base URL ending in /api/; empty: the public one.
	APIURL string `yaml:"api_url"`
	// ThinkingReaction is the emoji name (without colons) added to the
	// message being answered while the reply is written and removed after;
	// empty: hourglass_flowing_sand; "none" turns the signal off.
	ThinkingReaction string `yaml:"thinking_reaction"`
	// RatePerChannelPerSecond is the most messages a second to one channel,
	// shared by every replica (default 1, Slack's limit; short bursts of 3).
	RatePerChannelPerSecond float64 `yaml:"rate_per_channel_per_second"`

	// ClientID and ClientSecret turn on installs by OAuth (docs/slack-app.md):
	// any workspace installs the app at /webhooks/slack/install and is
	// answered with its own bot token; BotToken is then not used.
	ClientID     string `yaml:"client_id"`
	ClientSecret string `yaml:"client_secret"`
	// Scopes are the bot scopes an install asks for; empty: defaultScopes.
	Scopes []string `yaml:"scopes"`
	// InstallRedirect is where the installer lands after an install; empty:
	// a plain success page.
	InstallRedirect string `yaml:"install_redirect"`
	// TokenKey (32 bytes, base64) encrypts the installations' tokens in
	// Redis (AES-256-GCM); required with ClientID. TokenKeyOld is the
	// previous key during a key change: read, never written.
	TokenKey    string `yaml:"token_key"`
	TokenKeyOld string `yaml:"token_key_old"`
}

// defaultScopes are the bot scopes the gateway uses: mentions and direct
// messages in, replies out, shared photos and voice notes, the thinking
// reaction.
var defaultScopes = []string{"app_mentions:read", "chat:write", "im:history", "files:read", "reactions:write"}

// Installs reports whether workspaces install the app by OAuth (client_id
// set) rather than the config naming one bot token.
func (c Config) Installs() bool { return c.ClientID != "" }

// Validate reports every problem of the section, each prefixed with its key
// path, joined with errors.Join.
func (c Config) Validate() error {
	var errs []error
	add := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("channels.slack."+key+": "+format, args...))
	}
	switch {
	case c.Installs():
		c.validateInstalls(add)
	case c.ClientSecret != "" || c.TokenKey != "":
		add("client_id", "required with client_secret and token_key (installs by OAuth)")
	case c.BotToken == "":
		add("bot_token", "required (or client_id, client_secret and token_key to install by OAuth)")
	case strings.HasPrefix(c.BotToken, "xapp-"):
		add("bot_token", "is an app-level token (xapp-…); want the bot token (xoxb-…)")
	}
	switch c.Mode {
	case "", ModeEvents:
		if c.SigningSecret == "" {
			add("signing_secret", "required in events mode")
		}
	case ModeSocket:
		if !strings.HasPrefix(c.AppToken, "xapp-") {
			add("app_token", "required in socket mode: an app-level token (xapp-…)")
		}
	default:
		add("mode", "%q: want events or socket", c.Mode)
	}
	if err := checkAPIURL(c.APIURL); err != nil {
		add("api_url", "%v", err)
	}
	if c.RatePerChannelPerSecond < 0 {
		add("rate_per_channel_per_second", "must not be negative")
	}
	if strings.ContainsAny(c.ThinkingReaction, " \t\n") {
		add("thinking_reaction", "%q: want an emoji name such as hourglass_flowing_sand", c.ThinkingReaction)
	}
	return errors.Join(errs...)
}

// validateInstalls checks the keys of installs by OAuth.
func (c Config) validateInstalls(add func(key, format string, args ...any)) {
	if c.ClientSecret == "" {
		add("client_secret", "required with client_id")
	}
	if _, err := parseKey(c.TokenKey); err != nil {
		add("token_key", "required with client_id: %v", err)
	}
	if c.TokenKeyOld != "" {
		if _, err := parseKey(c.TokenKeyOld); err != nil {
			add("token_key_old", "%v", err)
		}
	}
	for i, s := range c.Scopes {
		if s == "" || strings.ContainsAny(s, ", \t") {
			add(fmt.Sprintf("scopes[%d]", i), "%q: want one scope such as chat:write", s)
		}
	}
	if c.InstallRedirect != "" {
		if err := checkAPIURL(c.InstallRedirect); err != nil {
			add("install_redirect", "%v", err)
		}
	}
}

func checkAPIURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q: want an absolute http(s) URL", s)
	}
	return nil
}

// withDefaults fills the optional keys.
func (c Config) withDefaults() Config {
	if c.Mode == "" {
		c.Mode = ModeEvents
	}
	if c.APIURL != "" && !strings.HasSuffix(c.APIURL, "/") {
		c.APIURL += "/" // slack-go appends method names directly
	}
	if len(c.Scopes) == 0 {
		c.Scopes = defaultScopes
	}
	c.ThinkingReaction = strings.Trim(c.ThinkingReaction, ":")
	switch c.ThinkingReaction {
	case "":
		c.ThinkingReaction = defaultReaction
	case "none":
		c.ThinkingReaction = ""
	}
	return c
}
