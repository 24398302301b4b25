package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/providers/providertest"
	"github.com/botgw/botgw/state/redistest"
)

// The consent suite runs two replicas of the built binary over one real
// Redis, the Bot API fake and an echoing model ("You said: ...").

type consentRig struct {
	bcRig
	llm *providertest.OpenAI
}

func newConsentRig(t *testing.T, extra string) *consentRig {
	redisURL := ownDB(t, redistest.URL(t))
	api := newBotAPI(t)
	llm := providertest.NewOpenAI(t, providertest.Echo())
	prefix := fmt.Sprintf("cs%d", time.Now().UnixNano())
	o, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	cleanRedis(t, redis.NewClient(o), prefix+":*")
	cfg := fmt.Sprintf(`
redis: {url: %q, key_prefix: %s, lease_ttl: 2s, visibility: 1s}
provider: {kind: openai, base_url: %q, api_key: k, model: gpt-4o-mini, timeout: 20s, max_retries: 0}
compaction: {strategy: none}
channels:
  telegram: {token: %q, webhook_secret: %s, api_url: %q, rate_per_second: 1000, burst: 100}
events: {secret: %s}
admin: {token: %s}
log: {level: warn, format: text}
%s`, redisURL, prefix, llm.URL+"/v1", e2eBotToken, faultSecret, api.URL, bcSecret, faultAdminToken, extra)
	r := &consentRig{llm: llm}
	r.api = api
	r.replicas = []*replica{startReplica(t, "a", cfg), startReplica(t, "b", cfg)}
	return r
}

// say posts the player's text to replica i and waits for the n-th message
// to the chat.
func (r *consentRig) say(t *testing.T, i int, chat int64, msgID int, text string, n int) string {
	t.Helper()
	deliver(t, r.replicas, i, tgText(chat, msgID, text))
	r.api.WaitFor(func() bool { return sentTo(r.api, chat) >= n })
	var last string
	for _, c := range r.api.Delivered() {
		if c.Params["chat_id"] == fmt.Sprint(chat) {
			last = c.Params["text"]
		}
	}
	return last
}

// admin sends an authenticated admin request and decodes the answer.
func admin(t *testing.T, method, u string, body any) (int, map[string]any) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, u, rd)
	req.Header.Set("Authorization", "Bearer "+faultAdminToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func chatURL(base string, chat int64) string {
	return base + "/v1/admin/chats/" + url.PathEscape(fmt.Sprintf("telegram:%d", chat))
}

// broadcastTo sends a message broadcast to chats and waits for its end.
func (r *consentRig) broadcastTo(t *testing.T, id, text string, chats ...int64) map[string]any {
	t.Helper()
	names := make([]string, len(chats))
	for i, c := range chats {
		names[i] = fmt.Sprintf("telegram:%d", c)
	}
	code, out := bcCall(t, http.MethodPost, r.replicas[0].base+"/v1/broadcasts", map[string]any{"id": id, "chats": names, "message": text})
	if code != http.StatusAccepted {
		t.Fatalf("POST broadcast: %d %v", code, out)
	}
	return r.waitBroadcast(t, id, time.Minute, nil)
}

// A player who sends STOP gets one confirmation and then no broadcast, no
// reply to an event with respond and no operator message (unless
// overridden); their own messages are answered with the event as context;
// a reset keeps the opt-out; it holds on the other replica and across a
// restart; /start lifts it. "stop" inside a sentence is a message.
func TestOptOutHoldsAcrossReplicasResetAndRestart(t *testing.T) {
	r := newConsentRig(t, "")
	const stopped, other int64 = 7001, 7002
	if got := r.say(t, 0, stopped, 1, "hello", 1); got != "You said: hello" {
		t.Fatalf("first reply %q", got)
	}
	if got := r.say(t, 1, stopped, 2, "Stop", 2); !strings.Contains(got, "/start") {
		t.Fatalf("confirmation of STOP = %q, want one that names /start", got)
	}
	if code, v := admin(t, http.MethodGet, chatURL(r.replicas[0].base, stopped), nil); code != 200 || v["opted_out"] != true || v["opted_out_at"] == nil {
		t.Fatalf("admin view: %d opted_out=%v at=%v", code, v["opted_out"], v["opted_out_at"])
	}
	p := r.broadcastTo(t, "news-1", "Round one is over", stopped, other)
	if p["done"] != 1.0 || p["skipped_opted_out"] != 1.0 || p["state"] != "finished" {
		t.Errorf("broadcast progress %v, want done 1, skipped_opted_out 1", p)
	}
	if n := r.perChat("Round one is over"); n[fmt.Sprint(stopped)] != 0 || n[fmt.Sprint(other)] != 1 {
		t.Errorf("broadcast deliveries %v, want none to the opted-out chat, one to the other", n)
	}
	calls := len(r.llm.Calls())
	ev := fmt.Sprintf(`{"chat":"telegram:%d","text":"The player reached the theatre","id":"ev-1","respond":true}`, stopped)
	if code, _ := e2e.PostJSON(t, r.replicas[1].base+"/v1/events", ev, "Authorization", "Bearer "+bcSecret); code != 202 {
		t.Fatalf("event: %d", code)
	}
	if got := r.say(t, 0, stopped, 3, "where am I?", 3); got != "You said: where am I?" {
		t.Errorf("reply to the player's own message %q", got)
	}
	if got := len(r.llm.Calls()) - calls; got != 1 {
		t.Errorf("model calls since the event: %d, want 1 (the player's message; none for the event)", got)
	}
	if !strings.Contains(string(r.llm.Calls()[len(r.llm.Calls())-1].Raw), "The player reached the theatre") {
		t.Errorf("the player's turn did not carry the event as context")
	}
	if code, _ := admin(t, http.MethodPost, chatURL(r.replicas[1].base, stopped)+"/reset", nil); code != 200 {
		t.Fatalf("reset: %d", code)
	}
	if code, v := admin(t, http.MethodGet, r.replicas[1].base+"/v1/admin/chats?opted_out=true", nil); code != 200 || fmt.Sprint(v["chats"]) != fmt.Sprintf("[telegram:%d]", stopped) {
		t.Errorf("opted-out list after a reset: %d %v", code, v)
	}
	r.replicas[0].stop(t)
	r.replicas[0].start(t)
	if p := r.broadcastTo(t, "news-2", "Round two is over", stopped); p["skipped_opted_out"] != 1.0 {
		t.Errorf("after a reset and a restart: %v, want the item skipped", p)
	}
	msg := map[string]any{"text": "Hi, Sam here", "operator": "Sam"}
	if code, v := admin(t, http.MethodPost, chatURL(r.replicas[0].base, stopped)+"/messages", msg); code != 409 || !strings.Contains(fmt.Sprint(v["error"]), "opted out") {
		t.Errorf("operator message to an opted-out player: %d %v, want 409 naming the opt-out", code, v)
	}
	msg["override"] = true
	if code, _ := admin(t, http.MethodPost, chatURL(r.replicas[0].base, stopped)+"/messages", msg); code != 202 {
		t.Errorf("operator message with override: %d, want 202", code)
	}
	r.api.WaitFor(func() bool { return r.perChat("Sam here")[fmt.Sprint(stopped)] == 1 })
	if got := r.say(t, 1, stopped, 4, "please stop it", 5); got != "You said: please stop it" {
		t.Errorf(`"stop" inside a sentence: %q, want the model's answer`, got)
	}
	if got := r.say(t, 0, stopped, 5, "/start", 6); !strings.Contains(got, "/stop") {
		t.Errorf("confirmation of /start = %q", got)
	}
	if p := r.broadcastTo(t, "news-3", "Round three", stopped); p["done"] != 1.0 {
		t.Errorf("after /start: %v, want the item sent", p)
	}
	r.api.WaitFor(func() bool { return r.perChat("Round three")[fmt.Sprint(stopped)] == 1 })
}
