package whatsapp

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Group trigger modes (Config.GroupTrigger).
const (
	TriggerMention = "mention" // answer in groups only when mentioned or replied to
	TriggerAll     = "all"     // answer every group message
)

const (
	defaultLeaseTTL = 30 * time.Second
	sqliteScheme    = "sqlite://"
)

// Config is the channels.whatsapp section of the gateway config.
type Config struct {
	// Store names the database holding the linked-device session:
	// sqlite:///var/lib/botgw/whatsapp.db (absolute), sqlite://data/wa.db
	// (relative), or postgres://user:pass@host/db (shared by every
	// replica, so any of them can take the session over).
	Store string `yaml:"store"`
	// GroupTrigger is "mention" (default: answer in a group only when the
	// bot is @mentioned or a message replies to it) or "all".
	GroupTrigger string `yaml:"group_trigger"`
	// LeaseTTL is how long one replica holds the WhatsApp session without
	// renewing it; another replica takes over within it. Default 30s.
	LeaseTTL time.Duration `yaml:"lease_ttl"`
	// Proxy is an optional http://, https:// or socks5:// proxy for the
	// WhatsApp websocket.
	Proxy string `yaml:"proxy"`
	// RatePerMinute is the most messages a minute the linked number sends,
	// evenly spaced and shared by every replica (default 20). WhatsApp
	// flags numbers that send in bursts.
	RatePerMinute float64 `yaml:"rate_per_minute"`
	// DailyCap is the most messages the linked number sends in one UTC
	// day, counted by every replica together (default 1000). Past it,
	// messages wait for the next day: WhatsApp bans numbers that send
	// much more than a person would.
	DailyCap int `yaml:"daily_cap"`
	// ColdRatePerMinute is the rate, below RatePerMinute, for chats whose
	// player never wrote to the number (broadcast targets; default 2, or
	// RatePerMinute if that is lower).
	// Messages to people who never wrote first are what WhatsApp bans
	// numbers for (temporary ban 101).
	ColdRatePerMinute float64 `yaml:"cold_rate_per_minute"`
	// ColdDailyCap is how many people who never wrote to the number it
	// writes to first in one UTC day, counted by every replica together
	// (default 30). Past it, their messages wait for the next day.
	ColdDailyCap int `yaml:"cold_daily_cap"`
	// DeviceName is how the gateway appears on the phone under Linked
	// devices, set when it is linked (default "botgw"; at most 64
	// characters).
	DeviceName string `yaml:"device_name"`
	// TypingDelay is the "composing…" pause before each message, by its
	// length (20 characters a second) within "<min>..<max>" (default
	// 1s..8s; "0" turns it off).
	TypingDelay string `yaml:"typing_delay"`
	// MaxBacklogAge: a message older than this when it arrives (queued by
	// WhatsApp during an outage or a ban) is backlog. Default 10m.
	MaxBacklogAge time.Duration `yaml:"max_backlog_age"`
	// Backlog is what happens to backlog: "summarize" (default: stored in
	// the history, then one brief reply per chat covering it), "answer"
	// (answered like new messages) or "ignore" (stored, not answered).
	Backlog string `yaml:"backlog"`
}

// Validate reports every problem, each prefixed with its full key path.
func (c Config) Validate() error {
	var errs []error
	if err := validateStore(c.Store); err != nil {
		errs = append(errs, fmt.Errorf("channels.whatsapp.store: %w", err))
	}
	switch c.GroupTrigger {
	case "", TriggerMention, TriggerAll:
	default:
		errs = append(errs, fmt.Errorf("channels.whatsapp.group_trigger: %q is not mention or all", c.GroupTrigger))
	}
	if c.LeaseTTL != 0 && c.LeaseTTL < 3*time.Second {
		errs = append(errs, fmt.Errorf("channels.whatsapp.lease_ttl: %v is shorter than 3s", c.LeaseTTL))
	}
	if c.RatePerMinute < 0 {
		errs = append(errs, errors.New("channels.whatsapp.rate_per_minute: must not be negative"))
	}
	errs = append(errs, c.validateBudgets()...)
	if _, err := parsePauseRange(c.TypingDelay); err != nil {
		errs = append(errs, fmt.Errorf("channels.whatsapp.typing_delay: %w", err))
	}
	switch c.Backlog {
	case "", BacklogAnswer, BacklogSummarize, BacklogIgnore:
	default:
		errs = append(errs, fmt.Errorf("channels.whatsapp.backlog: %q is not answer, summarize or ignore", c.Backlog))
	}
	if c.MaxBacklogAge < 0 {
		errs = append(errs, fmt.Errorf("channels.whatsapp.max_backlog_age: %v is negative", c.MaxBacklogAge))
	}
	if err := validateProxy(c.Proxy); err != nil {
		errs = append(errs, fmt.Errorf("channels.whatsapp.proxy: %w", err))
	}
	return errors.Join(errs...)
}

// validateBudgets checks the send budgets: no negative values, and a
// cold rate no higher than the number's rate (it would have no effect).
func (c Config) validateBudgets() []error {
	var errs []error
	if c.DailyCap < 0 {
		errs = append(errs, fmt.Errorf("channels.whatsapp.daily_cap: %d is negative", c.DailyCap))
	}
	if n := len([]rune(c.DeviceName)); n > maxDeviceName {
		errs = append(errs, fmt.Errorf("channels.whatsapp.device_name: %d characters, want at most %d", n, maxDeviceName))
	}
	if c.ColdDailyCap < 0 {
		errs = append(errs, fmt.Errorf("channels.whatsapp.cold_daily_cap: %d is negative", c.ColdDailyCap))
	}
	switch {
	case c.ColdRatePerMinute < 0:
		errs = append(errs, errors.New("channels.whatsapp.cold_rate_per_minute: must not be negative"))
	case c.RatePerMinute >= 0 && c.coldRate() > c.rate():
		errs = append(errs, fmt.Errorf("channels.whatsapp.cold_rate_per_minute: %v is above rate_per_minute (%v); chats whose player never wrote first must go slower, not faster",
			c.coldRate(), c.rate()))
	}
	return errs
}

func validateStore(s string) error {
	switch {
	case s == "":
		return errors.New("required (e.g. sqlite:///var/lib/botgw/whatsapp.db)")
	case isPostgres(s):
		if u, err := url.Parse(s); err != nil || u.Host == "" {
			return errors.New("a PostgreSQL URL needs a host: postgres://user:password@host:5432/botgw")
		}
	case !strings.HasPrefix(s, sqliteScheme):
		return fmt.Errorf("%q must start with %s, postgres:// or postgresql://", s, sqliteScheme)
	case strings.TrimPrefix(s, sqliteScheme) == "":
		return errors.New("sqlite:// needs a file path (sqlite:///var/lib/botgw/whatsapp.db)")
	}
	return nil
}

func validateProxy(p string) error {
	if p == "" {
		return nil
	}
	u, err := url.Parse(p)
	if err != nil {
		return fmt.Errorf("proxy URL: %w", err)
	}
	switch u.Scheme {
	case "http", "https", "socks5":
		return nil
	}
	return fmt.Errorf("%q: scheme must be http, https or socks5", p)
}

func isPostgres(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// storeName names the store in messages: the SQLite file, or the
// PostgreSQL URL with its password hidden.
func (c Config) storeName() string {
	if !isPostgres(c.Store) {
		return c.sqlitePath()
	}
	if u, err := url.Parse(c.Store); err == nil {
		return u.Redacted()
	}
	return "the PostgreSQL store"
}

// sqlitePath is the database file named by a valid sqlite:// store.
func (c Config) sqlitePath() string { return strings.TrimPrefix(c.Store, sqliteScheme) }

// sqliteDSN is the modernc.org/sqlite DSN for the store: whatsmeow needs
// foreign keys on; the busy timeout lets `botgw whatsapp link` and a running
// gateway share the file; _txlock=immediate takes the write lock when a
// transaction begins, so whatsmeow's read-then-write transactions wait
// for each other (busy timeout) instead of failing with SQLITE_BUSY when
// the read lock cannot be upgraded.
func (c Config) sqliteDSN() string {
	return "file:" + c.sqlitePath() + "?_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_txlock=immediate"
}

func (c Config) leaseTTL() time.Duration {
	if c.LeaseTTL == 0 {
		return defaultLeaseTTL
	}
	return c.LeaseTTL
}

func (c Config) groupTrigger() string {
	if c.GroupTrigger == "" {
		return TriggerMention
	}
	return c.GroupTrigger
}

const defaultMaxBacklogAge = 10 * time.Minute

func (c Config) maxBacklogAge() time.Duration {
	if c.MaxBacklogAge == 0 {
		return defaultMaxBacklogAge
	}
	return c.MaxBacklogAge
}

func (c Config) backlogMode() string {
	if c.Backlog == "" {
		return BacklogSummarize
	}
	return c.Backlog
}
