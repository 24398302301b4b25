package state

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Aliases pin a value under a name for the first writer: every replica then
// reads the same one. The WhatsApp channel pins each person's chat key on
// their LID. Keys: <prefix>:alias:{<name>}.
type Aliases struct{ s *Store }

// Aliases returns the store's pinned aliases.
func (s *Store) Aliases() Aliases { return Aliases{s} }

var pinScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return cur`)

// Pin returns the value stored under name, storing value first when there
// is none, and keeps it for ttl from now. One round trip.
func (a Aliases) Pin(ctx context.Context, name, value string, ttl time.Duration) (string, error) {
	key := a.s.prefix + ":alias:{" + name + "}"
	v, err := pinScript.Run(ctx, a.s.c, []string{key}, value, ms(ttl)).Text()
	if err != nil {
		return "", fmt.Errorf("pin alias %s: %w", name, err)
	}
	return v, nil
}
