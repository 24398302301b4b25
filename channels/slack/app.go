package slack

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/botgw/botgw"
)

// Counters of installs by OAuth, exported as botgw_channel_events_total.
const (
	statInstall       = "install"
	statUninstall     = "uninstall"
	statUnknownTeam   = "unknown_team"
	statRefresh       = "token_refresh"
	statRefreshFailed = "token_refresh_failed"
)

// appState is what installs by OAuth keep besides the store: the redirect
// URL, the counters, the refresher and what it last saw.
type appState struct {
	redirectURI string
	http        *http.Client

	mu      sync.Mutex
	stats   map[string]uint64
	status  AppStatus
	backoff map[string]retry // failed refreshes, by installation id

	stop context.CancelFunc
	done chan struct{}
}

// retry is when a failed refresh may be tried again.
type retry struct {
	at    time.Time
	delay time.Duration
}

// AppStatus is the installs' state in GET /v1/admin/channels, as this
// replica's refresher last saw it (every minute).
type AppStatus struct {
	Installations int `json:"installations"`
	// RefreshFailing are the installations whose token could not be
	// refreshed; the refresh is retried with backoff.
	RefreshFailing []RefreshFailure `json:"refresh_failing,omitempty"`
	// OldKey counts installations still sealed with token_key_old.
	OldKey int `json:"sealed_with_old_key,omitempty"`
}

// RefreshFailure is one installation whose token refresh failed.
type RefreshFailure struct {
	TeamID    string    `json:"team_id"`
	Error     string    `json:"error"`
	ExpiresAt time.Time `json:"expires_at"`
}

func newAppState(redirectURI string, client *http.Client) *appState {
	return &appState{redirectURI: redirectURI, http: client, stats: map[string]uint64{}, backoff: map[string]retry{}}
}

// count adds one to a counter; a nil appState (one bot token) counts nothing.
func (s *appState) count(stat string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats[stat]++
}

// EventCounts returns the install counters, for the metrics.
func (a *adapter) EventCounts() map[string]uint64 {
	if a.app == nil {
		return map[string]uint64{}
	}
	a.app.mu.Lock()
	defer a.app.mu.Unlock()
	return maps.Clone(a.app.stats)
}

// failed notes a failed refresh of id (shown at once in Status) and when
// to try again: after 30 s, doubling up to 10 minutes.
func (s *appState) failed(id, msg string, expires time.Time, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.backoff[id]
	r.delay = min(max(2*r.delay, 30*time.Second), 10*time.Minute)
	r.at = now.Add(r.delay)
	s.backoff[id] = r
	s.status.RefreshFailing = slices.DeleteFunc(s.status.RefreshFailing, func(f RefreshFailure) bool { return f.TeamID == id })
	s.status.RefreshFailing = append(s.status.RefreshFailing, RefreshFailure{TeamID: id, Error: msg, ExpiresAt: expires})
}

// refreshed forgets the failures of id.
func (s *appState) refreshed(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.backoff, id)
	s.status.RefreshFailing = slices.DeleteFunc(s.status.RefreshFailing, func(f RefreshFailure) bool { return f.TeamID == id })
}

// mayTry reports whether a refresh of id is not held back by a failure.
func (s *appState) mayTry(id string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !now.Before(s.backoff[id].at)
}

// eventsAppChannel and socketAppChannel are the channel when workspaces
// install the app: they add the install routes, the admin routes and the
// installs' status.
type (
	eventsAppChannel struct{ eventsChannel }
	socketAppChannel struct{ socketChannel }
)

var (
	_ botgw.WebhookReceiver = (*socketAppChannel)(nil)
	_ botgw.Listener        = (*socketAppChannel)(nil)
)

// WebhookHandler serves the install link and the OAuth redirect (events
// arrive over Socket Mode).
func (c *socketAppChannel) WebhookHandler(botgw.Deliver) http.Handler {
	mux := http.NewServeMux()
	c.mountInstall(mux)
	return mux
}

// Status is the installs' state for GET /v1/admin/channels.
func (c *eventsAppChannel) Status() any { return c.appStatus() }

// Status is the installs' state for GET /v1/admin/channels.
func (c *socketAppChannel) Status() any { return c.appStatus() }

// AdminHandler serves /v1/admin/slack/installations.
func (c *eventsAppChannel) AdminHandler() http.Handler { return c.adminHandler() }

// AdminHandler serves /v1/admin/slack/installations.
func (c *socketAppChannel) AdminHandler() http.Handler { return c.adminHandler() }

func (a *adapter) appStatus() AppStatus {
	a.app.mu.Lock()
	defer a.app.mu.Unlock()
	st := a.app.status
	st.RefreshFailing = slices.Clone(st.RefreshFailing)
	return st
}

// startApp runs the refresher until Close.
func (a *adapter) startApp() {
	a.app.mu.Lock()
	defer a.app.mu.Unlock()
	if a.app.stop != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.app.stop, a.app.done = cancel, make(chan struct{})
	go func() {
		defer close(a.app.done)
		a.refreshLoop(ctx)
	}()
}

// Close stops the refresher.
func (a *adapter) Close() error {
	if a.app == nil {
		return nil
	}
	a.app.mu.Lock()
	stop, done := a.app.stop, a.app.done
	a.app.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	return nil
}
