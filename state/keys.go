package state

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/botgw/botgw"
)

// workShards is the number of work zsets. Sharding spreads the delay queue
// over several cluster slots; 16 keeps Due at one pipelined round trip.
const workShards = 16

// chatKeys are the Redis keys of one chat. They share the hash tag
// {<chat>} so every per-chat script runs on one cluster slot.
type chatKeys struct {
	member  string // the chat key string, as stored in the work zsets
	state   string
	pending string
	outbox  string
	lease   string
	ids     string // the prefix of the chat's dedupe records: ids + <inbound id>
	work    string // the chat's work shard; a different slot
}

func (s *Store) keys(k botgw.ChatKey) (chatKeys, error) {
	member := k.String()
	if _, err := botgw.ParseChatKey(member); err != nil {
		return chatKeys{}, err
	}
	base := s.prefix + ":{" + member + "}:"
	return chatKeys{
		member:  member,
		state:   base + "state",
		pending: base + "pending",
		outbox:  base + "outbox",
		lease:   base + "lease",
		ids:     base + "id:",
		work:    s.workKey(shardOf(member)),
	}, nil
}

func (s *Store) workKey(shard uint32) string {
	return fmt.Sprintf("%s:work:{%d}", s.prefix, shard)
}

func (s *Store) onceKey(name string) string {
	return s.prefix + ":once:{" + name + "}"
}

// shardOf picks a chat's work shard: fnv32a(chat) % workShards.
func shardOf(member string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(member))
	return h.Sum32() % workShards
}

// statePattern is the SCAN pattern that matches every chat's state key.
func (s *Store) statePattern() string {
	return globEscape(s.prefix) + ":{*}:state"
}

// chatFromStateKey extracts the chat key from "<prefix>:{<chat>}:state".
func (s *Store) chatFromStateKey(key string) (botgw.ChatKey, error) {
	inner, ok := strings.CutPrefix(key, s.prefix+":{")
	if ok {
		inner, ok = strings.CutSuffix(inner, "}:state")
	}
	if !ok {
		return botgw.ChatKey{}, fmt.Errorf("state key %q: unexpected layout", key)
	}
	return botgw.ParseChatKey(inner)
}

// globEscape quotes the characters SCAN MATCH treats as pattern syntax.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
