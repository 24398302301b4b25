package slack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/slack-go/slack"
)

// Installation is the app installed in one workspace, or in every
// workspace of an Enterprise Grid organisation (an org-wide install, kept
// under the enterprise's id).
type Installation struct {
	TeamID       string
	TeamName     string
	EnterpriseID string
	OrgWide      bool
	BotUserID    string
	Scopes       []string
	InstalledBy  string // the installer's user id
	InstalledAt  time.Time
	BotToken     string // xoxb-…; sealed in Redis
	RefreshToken string // with token rotation; sealed in Redis
	ExpiresAt    time.Time
	// RefreshError is the last failed refresh, kept until one succeeds.
	RefreshError string
}

// ID is the key the installation is kept and routed under: the team, or
// the enterprise for an org-wide install.
func (i Installation) ID() string {
	if i.OrgWide {
		return i.EnterpriseID
	}
	return i.TeamID
}

// record is an installation as Redis holds it: the tokens sealed.
type record struct {
	TeamID       string    `json:"team_id,omitempty"`
	TeamName     string    `json:"team_name,omitempty"`
	EnterpriseID string    `json:"enterprise_id,omitempty"`
	OrgWide      bool      `json:"org_wide,omitempty"`
	BotUserID    string    `json:"bot_user_id"`
	Scopes       []string  `json:"scopes"`
	InstalledBy  string    `json:"installed_by,omitempty"`
	InstalledAt  time.Time `json:"installed_at"`
	BotToken     string    `json:"bot_token_sealed"`
	RefreshToken string    `json:"refresh_token_sealed,omitempty"`
	ExpiresAt    time.Time `json:"expires_at,omitzero"`
	RefreshError string    `json:"refresh_error,omitempty"`
}

// maxCached bounds the per-replica cache of opened installations.
const maxCached = 20000

// installStore keeps installations in one Redis hash (field: the
// installation's id) with their tokens sealed, plus the OAuth states and
// the refresh locks. A lookup is one HMGET; what it opens (the tokens, the
// Web API client) is cached per replica under the raw value read, so a
// changed or deleted installation is seen by every replica at its next
// lookup, with no invalidation to miss.
type installStore struct {
	rdb    goredis.UniversalClient
	base   string // <prefix>:slack:{installs}
	seal   *sealer
	client func(token string) *slack.Client

	mu    sync.Mutex
	cache map[string]opened // by id
}

// opened is an installation as last read, opened.
type opened struct {
	raw   string
	inst  Installation
	api   *slack.Client
	stale bool // sealed with token_key_old
}

func newInstallStore(rdb goredis.UniversalClient, prefix string, s *sealer, client func(string) *slack.Client) *installStore {
	return &installStore{rdb: rdb, base: prefix + ":slack:{installs}", seal: s, client: client, cache: map[string]opened{}}
}

func (s *installStore) hash() string { return s.base }

// Save stores an installation, replacing the one under its id.
func (s *installStore) Save(ctx context.Context, inst Installation) error {
	raw, err := s.marshal(inst)
	if err != nil {
		return err
	}
	if err := s.rdb.HSet(ctx, s.hash(), inst.ID(), raw).Err(); err != nil {
		return fmt.Errorf("save slack installation: %w", err)
	}
	return nil
}

func (s *installStore) marshal(inst Installation) (string, error) {
	id := inst.ID()
	if id == "" {
		return "", errors.New("slack installation without a team or enterprise id")
	}
	b, err := json.Marshal(record{TeamID: inst.TeamID, TeamName: inst.TeamName, EnterpriseID: inst.EnterpriseID,
		OrgWide: inst.OrgWide, BotUserID: inst.BotUserID, Scopes: inst.Scopes, InstalledBy: inst.InstalledBy,
		InstalledAt: inst.InstalledAt.UTC(), BotToken: s.seal.seal(id, inst.BotToken),
		RefreshToken: s.seal.seal(id, inst.RefreshToken), ExpiresAt: inst.ExpiresAt.UTC(), RefreshError: inst.RefreshError})
	return string(b), err
}

// Lookup returns the installation of the first of ids that has one (a
// team, then an enterprise): one Redis read. ok is false when none has.
func (s *installStore) Lookup(ctx context.Context, ids ...string) (o opened, ok bool, err error) {
	var fields []string
	for _, id := range ids {
		if id != "" {
			fields = append(fields, id)
		}
	}
	if len(fields) == 0 {
		return opened{}, false, nil
	}
	vals, err := s.rdb.HMGet(ctx, s.hash(), fields...).Result()
	if err != nil {
		return opened{}, false, fmt.Errorf("look up slack installation: %w", err)
	}
	for i, v := range vals {
		if raw, found := v.(string); found {
			o, err := s.open(fields[i], raw)
			return o, err == nil, err
		}
	}
	return opened{}, false, nil
}

// open decodes raw, from the cache when it is the value last opened.
func (s *installStore) open(id, raw string) (opened, error) {
	s.mu.Lock()
	c, hit := s.cache[id]
	s.mu.Unlock()
	if hit && c.raw == raw {
		return c, nil
	}
	inst, stale, err := s.unmarshal(id, raw)
	if err != nil {
		return opened{}, err
	}
	o := opened{raw: raw, inst: inst, api: s.client(inst.BotToken), stale: stale}
	s.mu.Lock()
	if len(s.cache) >= maxCached {
		clear(s.cache)
	}
	s.cache[id] = o
	s.mu.Unlock()
	return o, nil
}

func (s *installStore) unmarshal(id, raw string) (Installation, bool, error) {
	var r record
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		return Installation{}, false, fmt.Errorf("slack installation %s: %w", id, err)
	}
	inst := Installation{TeamID: r.TeamID, TeamName: r.TeamName, EnterpriseID: r.EnterpriseID, OrgWide: r.OrgWide,
		BotUserID: r.BotUserID, Scopes: r.Scopes, InstalledBy: r.InstalledBy, InstalledAt: r.InstalledAt,
		ExpiresAt: r.ExpiresAt, RefreshError: r.RefreshError}
	var stale, stale2 bool
	var err error
	if inst.BotToken, stale, err = s.seal.open(id, r.BotToken); err != nil {
		return Installation{}, false, fmt.Errorf("slack installation %s: bot token: %w", id, err)
	}
	if inst.RefreshToken, stale2, err = s.seal.open(id, r.RefreshToken); err != nil {
		return Installation{}, false, fmt.Errorf("slack installation %s: refresh token: %w", id, err)
	}
	return inst, stale || stale2, nil
}

// Delete removes the installation under id; it reports whether there was one.
func (s *installStore) Delete(ctx context.Context, id string) (bool, error) {
	n, err := s.rdb.HDel(ctx, s.hash(), id).Result()
	if err != nil {
		return false, fmt.Errorf("delete slack installation: %w", err)
	}
	s.mu.Lock()
	delete(s.cache, id)
	s.mu.Unlock()
	return n > 0, nil
}

// All returns every installation's record as stored, tokens left sealed,
// by id.
func (s *installStore) All(ctx context.Context) (map[string]string, error) {
	m, err := s.rdb.HGetAll(ctx, s.hash()).Result()
	if err != nil {
		return nil, fmt.Errorf("list slack installations: %w", err)
	}
	return m, nil
}

// replaceScript sets a field only while it still holds the value read.
var replaceScript = goredis.NewScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0`)

// Replace stores inst in place of the value old, only if the installation
// still holds old (it was not deleted, reinstalled or refreshed since).
func (s *installStore) Replace(ctx context.Context, old string, inst Installation) (bool, error) {
	raw, err := s.marshal(inst)
	if err != nil {
		return false, err
	}
	n, err := replaceScript.Run(ctx, s.rdb, []string{s.hash()}, inst.ID(), old, raw).Int()
	if err != nil {
		return false, fmt.Errorf("replace slack installation: %w", err)
	}
	return n == 1, nil
}

// stateTTL is how long an install link's state stays usable.
const stateTTL = 10 * time.Minute

// NewState makes a random single-use OAuth state, valid stateTTL on every
// replica.
func (s *installStore) NewState(ctx context.Context) (string, error) {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	st := hex.EncodeToString(b)
	if err := s.rdb.Set(ctx, s.base+":state:"+st, "1", stateTTL).Err(); err != nil {
		return "", fmt.Errorf("keep oauth state: %w", err)
	}
	return st, nil
}

// TakeState uses up a state: true once for a state NewState made less than
// stateTTL ago, false for any other (unknown, used, expired).
func (s *installStore) TakeState(ctx context.Context, st string) (bool, error) {
	if st == "" || len(st) > 128 {
		return false, nil
	}
	err := s.rdb.GetDel(ctx, s.base+":state:"+st).Err()
	if errors.Is(err, goredis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("take oauth state: %w", err)
	}
	return true, nil
}
