package slack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/slack-go/slack"

	"github.com/botgw/botgw"
)

// Token rotation (docs/slack-app.md): a rotating token lasts 12 hours and
// its refresh token works once, so a token is refreshed by one replica at a
// time, under a lock in Redis, after reading it again; the others read the
// new token at their next lookup.
const (
	// refreshAhead is how long before its expiry a token is refreshed.
	refreshAhead = 10 * time.Minute
	// refreshEvery is how often the refresher looks at every installation.
	refreshEvery = time.Minute
	// lockTTL bounds a refresh lock a crashed replica leaves behind.
	lockTTL = 30 * time.Second
	// awaitOther bounds the wait for another replica's refresh of an
	// expired token.
	awaitOther = 10 * time.Second
)

// errNoInstallation: the team has no installation (never, or no longer).
var errNoInstallation = errors.New("no slack installation")

// due reports whether inst's token is to be refreshed at now.
func due(inst Installation, now time.Time) bool {
	return inst.RefreshToken != "" && !inst.ExpiresAt.IsZero() && now.After(inst.ExpiresAt.Add(-refreshAhead))
}

// tokenFor is the client of team id's installation, its token refreshed
// first when due: one Redis read when it is not.
func (a *adapter) tokenFor(ctx context.Context, id string) (*slack.Client, error) {
	o, ok, err := a.installs.Lookup(ctx, id)
	if err != nil {
		return nil, &botgw.PlatformError{Channel: name, Err: err}
	}
	if !ok {
		return nil, errNoInstallation
	}
	now := time.Now()
	if !due(o.inst, now) {
		return o.api, nil
	}
	fresh, err := a.refresh(ctx, id)
	switch {
	case err == nil:
		return fresh.api, nil
	case errors.Is(err, errNoInstallation):
		return nil, err
	case now.Before(o.inst.ExpiresAt): // still valid: use it, retry later
		return o.api, nil
	}
	return nil, &botgw.PlatformError{Channel: name, Err: fmt.Errorf("slack token of %s expired: %w", id, err)}
}

// refresh refreshes team id's token if it is still due once this replica
// holds the team's lock, and returns the installation as it then is. When
// another replica holds the lock, it returns the current installation, or
// waits for the other's refresh when the token has expired.
func (a *adapter) refresh(ctx context.Context, id string) (opened, error) {
	if !a.app.mayTry(id, time.Now()) {
		return opened{}, errors.New("refresh held back after a failure")
	}
	unlock, got, err := a.installs.lock(ctx, id)
	if err != nil {
		return opened{}, err
	}
	if !got {
		return a.awaitRefresh(ctx, id)
	}
	defer unlock()
	o, ok, err := a.installs.Lookup(ctx, id)
	switch {
	case err != nil:
		return opened{}, err
	case !ok:
		return opened{}, errNoInstallation
	case !due(o.inst, time.Now()):
		return o, nil // another replica refreshed it
	}
	return a.rotate(ctx, o)
}

// rotate trades the refresh token for a new token with oauth.v2.access
// (grant_type=refresh_token) and stores both; a failure is kept on the
// installation and shown in Status.
func (a *adapter) rotate(ctx context.Context, o opened) (opened, error) {
	id, inst, now := o.inst.ID(), o.inst, time.Now()
	resp, err := slack.RefreshOAuthV2TokenContext(ctx, a.app.http, a.cfg.ClientID, a.cfg.ClientSecret,
		inst.RefreshToken, slack.OAuthOptionAPIURL(a.apiURL()))
	if err == nil && resp.AccessToken == "" {
		err = errors.New("no token in the answer")
	}
	if err != nil {
		msg := refreshError(err)
		a.app.count(statRefreshFailed)
		a.app.failed(id, msg, inst.ExpiresAt, now)
		a.log.Warn("slack token refresh failed; retrying later", "team", id, "err", msg)
		inst.RefreshError = msg
		_, _ = a.installs.Replace(ctx, o.raw, inst)
		return opened{}, fmt.Errorf("refresh slack token of %s: %s", id, msg)
	}
	inst.BotToken, inst.RefreshToken, inst.RefreshError = resp.AccessToken, resp.RefreshToken, ""
	inst.ExpiresAt = now.Add(time.Duration(resp.ExpiresIn) * time.Second).UTC()
	if resp.ExpiresIn <= 0 {
		inst.ExpiresAt, inst.RefreshToken = time.Time{}, "" // rotation turned off
	}
	if _, err := a.installs.Replace(ctx, o.raw, inst); err != nil {
		return opened{}, err
	}
	a.app.count(statRefresh)
	a.app.refreshed(id)
	a.log.Info("slack token refreshed", "team", id, "expires_at", inst.ExpiresAt)
	fresh, ok, err := a.installs.Lookup(ctx, id)
	if err == nil && !ok {
		err = errNoInstallation
	}
	return fresh, err
}

// refreshError names a failed refresh without any token: Slack's error
// code, or the kind of failure.
func refreshError(err error) string {
	if se, ok := errors.AsType[slack.SlackErrorResponse](err); ok {
		return se.Err
	}
	if sc, ok := errors.AsType[slack.StatusCodeError](err); ok {
		return sc.Status
	}
	return "oauth.v2.access unreachable"
}

// awaitRefresh waits while another replica refreshes id's expired token;
// a token still valid is used as it is.
func (a *adapter) awaitRefresh(ctx context.Context, id string) (opened, error) {
	deadline := time.Now().Add(awaitOther)
	for pause := 20 * time.Millisecond; ; pause = min(2*pause, 500*time.Millisecond) {
		o, ok, err := a.installs.Lookup(ctx, id)
		switch {
		case err != nil:
			return opened{}, err
		case !ok:
			return opened{}, errNoInstallation
		case time.Now().Before(o.inst.ExpiresAt) || !due(o.inst, time.Now()):
			return o, nil
		case time.Now().After(deadline):
			return opened{}, errors.New("another replica's refresh did not finish")
		}
		select {
		case <-ctx.Done():
			return opened{}, ctx.Err()
		case <-time.After(pause):
		}
	}
}

// unlockScript deletes a lock only while it is still the holder's.
var unlockScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

// lock takes team id's refresh lock for lockTTL; got is false when another
// replica holds it.
func (s *installStore) lock(ctx context.Context, id string) (unlock func(), got bool, err error) {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	key, holder := s.base+":refresh:"+id, hex.EncodeToString(b)
	got, err = s.rdb.SetNX(ctx, key, holder, lockTTL).Result()
	if err != nil || !got {
		return nil, false, err
	}
	return func() {
		_ = unlockScript.Run(context.WithoutCancel(ctx), s.rdb, []string{key}, holder).Err()
	}, true, nil
}
