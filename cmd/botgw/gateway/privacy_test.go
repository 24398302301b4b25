//go:build !nowhatsapp

package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/syncbuf"
)

// With log.redact_chats on and log.content off, a turn, a corrupt pending
// entry, an operator's reset and a WhatsApp connection state change leave
// no chat id, phone number or message text anywhere in the log, and no JSON
// line carries a key twice.
func TestLogsKeepPlayersPrivate(t *testing.T) {
	target := sharedRedis(t)
	prefix := "botgwprivacy-" + randomSuffix()
	cleanRedis(t, target.shared, prefix+":*")
	const (
		chatKey = "web:447700900123"
		device  = "447700900999" // the linked WhatsApp number
		secret  = "tangerine"    // in every message the player writes
	)
	store := "sqlite://" + filepath.Join(t.TempDir(), "whatsapp.db")
	linkTestDevice(t, store)
	p := e2e.WriteFile(t, fmt.Sprintf(`
redis: {%s, key_prefix: %s}
provider: {kind: fake}
admin: {token: privacy-admin-token-0123456789}
log: {format: json, redact_chats: true, redact_key: privacy-test-key-0123456789, content: false}
channels:
  web: {reply_timeout: 30s}
  whatsapp: {store: %q, proxy: %q}
`, target.keys, prefix, store, "http://"+closedPort(t)))
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	var buf syncbuf.Buffer
	base := startGatewayWithLog(t, cfg, NewLogger(cfg.Log, &buf))

	chat(t, base, chatKey, "my "+secret+" password is 447700900123")
	pending := prefix + ":{" + chatKey + "}:pending"
	if err := target.shared.RPush(context.Background(), pending, "{not json: my "+secret+" again").Err(); err != nil {
		t.Fatal(err)
	}
	chat(t, base, chatKey, "still "+secret+"?")
	status, _ := e2e.PostJSON(t, base+"/v1/admin/chats/"+url.PathEscape(chatKey)+"/reset", "{}",
		"Authorization", "Bearer privacy-admin-token-0123456789")
	if status != 200 {
		t.Fatalf("admin reset: %d", status)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(buf.String(), "whatsapp connection state") || !strings.Contains(buf.String(), `"action":"reset"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no WhatsApp state change or reset in the log:\n%s", buf.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	out := buf.String()
	for _, must := range []string{`"msg":"turn"`, "dropping undecodable list entry", `"action":"reset"`, "whatsapp connection state"} {
		if !strings.Contains(out, must) {
			t.Errorf("the log lacks %s: the scenario did not run", must)
		}
	}
	unsalted := sha256.Sum256([]byte(chatKey))
	for _, leak := range []string{"447700900123", device, secret, hex.EncodeToString(unsalted[:6])} {
		if strings.Contains(out, leak) {
			t.Errorf("the log carries %q:\n%s", leak, linesWith(out, leak))
		}
	}
	if want := newLogPolicy(cfg.Log).hashChat(chatKey); !strings.Contains(out, `"chat":"`+want+`"`) {
		t.Errorf("the log lacks the chat's keyed hash %s", want)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if dup := duplicateKey(line); dup != "" {
			t.Errorf("key %q twice in %s", dup, line)
		}
	}
}

func linesWith(out, s string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// duplicateKey returns a key that occurs twice in one object of a JSON
// line, "" when none does (or the line is not JSON: reported elsewhere).
func duplicateKey(line string) string {
	dec := json.NewDecoder(bytes.NewReader([]byte(line)))
	var walk func() string
	walk = func() string {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, _ := dec.Token()
				key, _ := k.(string)
				if seen[key] {
					return key
				}
				seen[key] = true
				if d := walk(); d != "" {
					return d
				}
			}
			dec.Token()
		case json.Delim('['):
			for dec.More() {
				if d := walk(); d != "" {
					return d
				}
			}
			dec.Token()
		}
		return ""
	}
	return walk()
}
