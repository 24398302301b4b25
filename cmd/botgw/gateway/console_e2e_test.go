package gateway

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/providertest"
)

// The operator console on the built binary: replicas over one real Redis,
// Telegram through its webhook and a Bot API fake, the model a recording
// Chat Completions fake.

// chatNotFound is how Telegram refuses a message to a chat the bot cannot
// reach (the Bot API fake answers it while refusing).
var chatNotFound = &channeltest.Reply{Status: http.StatusBadRequest,
	Body: `{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`}

// consoleRig is n replicas, the model fake and the Bot API fake.
type consoleRig struct {
	llm      *providertest.OpenAI
	api      *channeltest.BotAPI
	replicas []*replica
}

func newConsoleRig(t *testing.T, n int) *consoleRig {
	t.Helper()
	target := sharedRedis(t)
	c := &consoleRig{llm: providertest.NewOpenAI(t, providertest.Echo()), api: newBotAPI(t)}
	prefix := "botgwconsole-" + randomSuffix()
	t.Cleanup(func() { cleanRedis(t, target.shared, prefix+":*") })
	for i := range n {
		cfg := faultConfig(target.keys, prefix, c.llm.URL+"/v1", "sk-console", c.api.URL)
		c.replicas = append(c.replicas, startReplica(t, string(rune('a'+i)), cfg))
	}
	return c
}

// admin calls the admin API of replica r and decodes a 2xx answer into out.
func (c *consoleRig) admin(t *testing.T, r int, method, path, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, c.replicas[r].base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+faultAdminToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %s", method, path, b)
		}
	}
	return res.StatusCode
}

func chatPath(chat int64) string {
	return "/v1/admin/chats/" + url.PathEscape(fmt.Sprintf("telegram:%d", chat))
}

func (c *consoleRig) pausedUntil(t *testing.T, r int, chat int64) string {
	var v struct {
		PausedUntil string `json:"paused_until"`
	}
	c.admin(t, r, "GET", chatPath(chat), "", &v)
	return v.PausedUntil
}

func TestConsoleTakeoverAcrossReplicas(t *testing.T) {
	c := newConsoleRig(t, 2)
	a, b := 0, 1
	chat := chatIDs(1)[0]
	deliver(t, c.replicas[a:], 0, tgText(chat, 1, "hello"))
	wait.Eventually(t, "the condition", func() bool { return sentTo(c.api, chat) == 1 })

	var paused struct {
		PausedUntil string `json:"paused_until"`
	}
	if code := c.admin(t, a, "POST", chatPath(chat)+"/pause", `{}`, &paused); code != 200 {
		t.Fatalf("pause through A: %d", code)
	}
	until, err := time.Parse(time.RFC3339, paused.PausedUntil)
	if err != nil || until.Sub(time.Now()) < 29*time.Minute {
		t.Fatalf("paused_until %q: want about 30m ahead (admin.takeover_ttl's default)", paused.PausedUntil)
	}
	wait.Eventually(t, "the condition", func() bool { return c.pausedUntil(t, b, chat) == paused.PausedUntil })
	if code := postUpdate(c.replicas[b].base, tgText(chat, 2, "I am stuck at the bridge")); code != 200 {
		t.Fatalf("player's message through B: %d", code)
	}
	wait.Eventually(t, "the condition", func() bool {
		v, err := adminChat(c.replicas[b].base, chat)
		return err == nil && v.Pending == 0 && strings.Contains(strings.Join(userLines(v.History), "|"), "stuck at the bridge")
	})
	if n := len(c.llm.Calls()); n != 1 {
		t.Fatalf("model calls after the paused-time message: %d, want 1", n)
	}
	if code := c.admin(t, a, "POST", chatPath(chat)+"/messages", `{"text":"Sam here: take the left path.","operator":"Sam"}`, nil); code != 202 {
		t.Fatalf("operator message through A: %d", code)
	}
	wait.Eventually(t, "the condition", func() bool { return sentTo(c.api, chat) == 2 })
	if msgs := c.api.Sent(); !strings.Contains(msgs[len(msgs)-1], "Sam here: take the left path.") {
		t.Errorf("Bot API got %q, want the operator's words", msgs[len(msgs)-1])
	}
	if code := c.admin(t, a, "POST", chatPath(chat)+"/resume", ``, nil); code != 200 {
		t.Fatalf("resume through A: %d", code)
	}
	wait.Eventually(t, "the condition", func() bool { return c.pausedUntil(t, b, chat) == "" })
	postUpdate(c.replicas[b].base, tgText(chat, 3, "thanks, found it"))
	wait.Eventually(t, "the condition", func() bool { return sentTo(c.api, chat) == 3 })
	reqs := c.llm.Calls()
	if len(reqs) != 2 {
		t.Fatalf("model calls: %d, want 2 (none while paused)", len(reqs))
	}
	last := reqs[1].Body.Messages
	tail := last[len(last)-3:]
	if tail[0].Role != "user" || !strings.Contains(tail[0].Text(), "stuck at the bridge") ||
		tail[1].Role != "assistant" || tail[1].Text() != "Sam here: take the left path." ||
		tail[2].Role != "user" || !strings.Contains(tail[2].Text(), "thanks, found it") {
		t.Errorf("model's request after resume ends %+v; want the paused-time message, the operator's words, the new message", tail)
	}
}

// deadLetters lists the dead letters through replica r.
func (c *consoleRig) deadLetters(t *testing.T, r int) []map[string]any {
	var v struct {
		Items []map[string]any `json:"items"`
	}
	if code := c.admin(t, r, "GET", "/v1/admin/dead-letters", "", &v); code != 200 {
		t.Fatalf("list dead letters: %d", code)
	}
	return v.Items
}

func TestConsoleDeadLetterFromTheBotAPI(t *testing.T) {
	c := newConsoleRig(t, 1)
	chat := chatIDs(1)[0]
	c.api.Refuse(chatNotFound, 0)
	deliver(t, c.replicas, 0, tgText(chat, 1, "where is the clue?"))
	wait.Eventually(t, "the condition", func() bool { return len(c.deadLetters(t, 0)) == 1 })
	d := c.deadLetters(t, 0)[0]
	if d["kind"] != "reply" || d["chat"] != fmt.Sprintf("telegram:%d", chat) ||
		!strings.Contains(fmt.Sprint(d["reason"]), "chat not found") || !strings.Contains(fmt.Sprint(d["text"]), "where is the clue?") {
		t.Fatalf("dead letter = %v", d)
	}
	c.api.Refuse(nil, 0)
	id := fmt.Sprint(d["id"])
	if code := c.admin(t, 0, "POST", "/v1/admin/dead-letters/"+id+"/retry?operator=Sam", "", nil); code != 202 {
		t.Fatalf("retry: %d", code)
	}
	wait.Eventually(t, "the condition", func() bool { return sentTo(c.api, chat) == 1 })
	deliver(t, c.replicas, 0, tgText(chat, 2, "got it"))
	wait.Eventually(t, "the condition", func() bool { return sentTo(c.api, chat) >= 2 })
	if n := sentTo(c.api, chat); n != 2 {
		t.Errorf("replies after a retry and one more message: %d, want 2 (the retried one once)", n)
	}
	c.api.Refuse(chatNotFound, 0)
	deliver(t, c.replicas, 0, tgText(chat, 3, "and now?"))
	wait.Eventually(t, "the condition", func() bool { return len(c.deadLetters(t, 0)) == 1 })
	id2 := fmt.Sprint(c.deadLetters(t, 0)[0]["id"])
	if code := c.admin(t, 0, "DELETE", "/v1/admin/dead-letters/"+id2+"?operator=Kim", "", nil); code != 200 {
		t.Fatalf("discard: %d", code)
	}
	if left := c.deadLetters(t, 0); len(left) != 0 {
		t.Errorf("dead letters after discard: %v", left)
	}
	var audit []struct{ Actor, Action, Target, Result string }
	c.admin(t, 0, "GET", "/v1/admin/audit", "", &audit)
	got := fmt.Sprint(audit)
	if !strings.Contains(got, "{admin-api (Sam) dead-letter retry "+id+" ok}") || !strings.Contains(got, "{admin-api (Kim) dead-letter discard "+id2+" ok}") {
		t.Errorf("audit = %s", got)
	}
}

func TestConfigCheckNamesTheConsoleKeys(t *testing.T) {
	path := e2e.WriteFile(t, "channels: {web: {}}\nadmin: {token: x, takeover_ttl: -1m, dead_letter_ttl: 0s, delivery_attempts: 0}\n")
	cfg, err := LoadConfig(path)
	if err == nil {
		err = cfg.Validate()
	}
	for _, key := range []string{"admin.takeover_ttl:", "admin.dead_letter_ttl:", "admin.delivery_attempts:"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("config check: %v, want a problem naming %s", err, key)
		}
	}
	def := DefaultConfig()
	if def.Admin.TakeoverTTL != 30*time.Minute || def.Admin.DeadLetterTTL != 168*time.Hour || def.StoreOptions().DeadLetterTTL != 168*time.Hour {
		t.Errorf("defaults: %+v", def.Admin)
	}
}
