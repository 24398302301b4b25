package telegram

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
)

// Modes and group triggers accepted in Config.
const (
	ModeWebhook = "webhook"
	ModePolling = "polling"

	TriggerMention = "mention"
	TriggerAll     = "all"
)

// Config is the channels.telegram section of the gateway config.
type Config struct {
	// Token is the bot token from @BotFather ("<bot id>:<secret>").
	Token string `yaml:"token"`
	// Mode is webhook (default) or polling. Polling runs one getUpdates
	// poller per token, so it cannot run on several replicas; webhooks can.
	Mode string `yaml:"mode"`
	// WebhookSecret is sent by Telegram in X-Telegram-Bot-Api-Secret-Token;
	// required in webhook mode (1-256 characters of A-Z a-z 0-9 _ -).
	WebhookSecret string `yaml:"webhook_secret"`
	// APIURL is the Bot API server base URL; empty means the public one.
	APIURL string `yaml:"api_url"`
	// GroupTrigger says when the bot answers in groups: mention (default:
	// when mentioned, replied to, or addressed with a /command) or all.
	// "all" needs the bot's privacy mode turned off in @BotFather.
	GroupTrigger string `yaml:"group_trigger"`
	// RatePerSecond is the sustained number of messages per second the bot
	// sends to one chat (default 1, near Telegram's own limit).
	RatePerSecond float64 `yaml:"rate_per_second"`
	// Burst is how many messages may go to one chat at once before the rate
	// applies (default 3).
	Burst int `yaml:"burst"`
	// BotRatePerSecond is the most messages a second the bot sends to all
	// its chats together, shared by every replica (default 30, Telegram's
	// broadcast limit; unset with a per-chat rate above 30, no bot-wide
	// limit); sends are spaced evenly.
	BotRatePerSecond float64 `yaml:"bot_rate_per_second"`
	// GroupRatePerMinute is the most messages a minute to one group
	// (default 20, Telegram's limit), spaced evenly.
	GroupRatePerMinute float64 `yaml:"group_rate_per_minute"`
}

const (
	defaultRate      = 1.0
	defaultBurst     = 3
	defaultBotRate   = 30.0
	defaultGroupRate = 20.0
)

var (
	tokenPattern  = regexp.MustCompile(`^[0-9]+:[A-Za-z0-9_-]+$`)
	secretPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)
)

// Validate reports every problem of c, each prefixed with its key path.
func (c Config) Validate() error {
	const p = "channels.telegram."
	var errs []error
	switch {
	case c.Token == "":
		errs = append(errs, errors.New(p+"token: required"))
	case !tokenPattern.MatchString(c.Token):
		errs = append(errs, errors.New(p+"token: want <bot id>:<secret> as given by @BotFather"))
	}
	switch c.mode() {
	case ModeWebhook:
		if !secretPattern.MatchString(c.WebhookSecret) {
			errs = append(errs, errors.New(p+"webhook_secret: required in webhook mode, 1-256 characters of A-Z a-z 0-9 _ -"))
		}
	case ModePolling:
	default:
		errs = append(errs, fmt.Errorf(p+"mode: %q: want webhook or polling", c.Mode))
	}
	if c.APIURL != "" {
		if u, err := url.Parse(c.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf(p+"api_url: %q: want an http(s) URL", c.APIURL))
		}
	}
	if t := c.GroupTrigger; t != "" && t != TriggerMention && t != TriggerAll {
		errs = append(errs, fmt.Errorf(p+"group_trigger: %q: want mention or all", t))
	}
	if c.RatePerSecond < 0 {
		errs = append(errs, errors.New(p+"rate_per_second: must not be negative"))
	}
	if c.BotRatePerSecond < 0 {
		errs = append(errs, errors.New(p+"bot_rate_per_second: must not be negative"))
	}
	if c.GroupRatePerMinute < 0 {
		errs = append(errs, errors.New(p+"group_rate_per_minute: must not be negative"))
	}
	if c.Burst < 0 {
		errs = append(errs, errors.New(p+"burst: must not be negative"))
	}
	return errors.Join(errs...)
}

func (c Config) mode() string {
	if c.Mode == "" {
		return ModeWebhook
	}
	return c.Mode
}

func (c Config) rate() float64 {
	if c.RatePerSecond == 0 {
		return defaultRate
	}
	return c.RatePerSecond
}

func (c Config) burst() int {
	if c.Burst == 0 {
		return defaultBurst
	}
	return c.Burst
}

// botLimit is the bot-wide limit: bot_rate_per_second, else 30 a second.
// ok is false when there is none: a rate_per_second raised above 30 with
// bot_rate_per_second unset says Telegram's public limits do not apply (a
// private Bot API server, a load test), so no bot-wide queue is kept.
func (c Config) botLimit() (rate float64, burst int, ok bool) {
	switch {
	case c.BotRatePerSecond != 0:
		return c.BotRatePerSecond, botBurst, true
	case c.rate() <= defaultBotRate:
		return defaultBotRate, botBurst, true
	}
	return 0, 0, false
}

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}
