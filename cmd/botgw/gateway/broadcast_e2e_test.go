package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/providers/providertest"
	"github.com/botgw/botgw/state/redistest"
)

// The broadcast suite runs two replicas of the built binary over one real
// Redis against a Bot API fake that allows 50 messages a second bot-wide
// (a token bucket of 10) and answers 429 with retry_after past it.

const bcSecret = "broadcast-secret"

// slowLLM is a Chat Completions fake that answers after delay, echoing the
// last message ("You said: ...").
func slowLLM(t *testing.T, delay time.Duration) string {
	return providertest.NewOpenAI(t, providertest.Delayed(delay, providertest.Echo())).URL + "/v1"
}

// bcRig is two replicas, the rate-limited Bot API fake and the slow model.
type bcRig struct {
	api      *channeltest.BotAPI
	replicas []*replica
}

func newBCRig(t *testing.T) *bcRig {
	redisURL := ownDB(t, redistest.URL(t))
	api := newBotAPI(t)
	api.BotLimit(50, 10)
	llm := slowLLM(t, time.Second)
	prefix := fmt.Sprintf("bc%d", time.Now().UnixNano())
	o, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	cleanRedis(t, redis.NewClient(o), prefix+":*")
	cleanRedis(t, redis.NewClient(o), "rate:"+prefix+":*")
	cfg := fmt.Sprintf(`
redis: {url: %q, key_prefix: %s, lease_ttl: 2s, visibility: 1s}
provider: {kind: openai, base_url: %q, api_key: k, model: gpt-4o-mini, timeout: 20s, max_retries: 0}
compaction: {strategy: none}
channels:
  telegram: {token: %q, webhook_secret: %s, api_url: %q, bot_rate_per_second: 50}
events: {secret: %s}
admin: {token: %s}
log: {level: warn, format: text}
`, redisURL, prefix, llm, e2eBotToken, faultSecret, api.URL, bcSecret, faultAdminToken)
	return &bcRig{api: api, replicas: []*replica{startReplica(t, "a", cfg), startReplica(t, "b", cfg)}}
}

// ownDB moves the rig to database 11 of the test Redis: its thousands of
// chat keys would otherwise slow the SCAN paging tests of other packages
// that share database 0 while the suite runs in parallel.
func ownDB(t *testing.T, redisURL string) string {
	u, err := url.Parse(redisURL)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
		t.Skipf("BOTGW_TEST_REDIS_URL %q: want a redis:// URL for the broadcast suite", redisURL)
	}
	u.Path = "/11"
	return u.String()
}

// call sends an authenticated broadcast request and decodes the answer.
func bcCall(t *testing.T, method, url string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Authorization", "Bearer "+bcSecret)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func chatRange(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("telegram:%d", from+i)
	}
	return out
}

// waitBroadcast polls GET on the replicas in turn until the broadcast is no
// longer running (or timeout), calling seen with each progress read.
func (r *bcRig) waitBroadcast(t *testing.T, id string, timeout time.Duration, seen func(map[string]any)) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for i := 0; time.Now().Before(deadline); i++ {
		base := r.replicas[i%len(r.replicas)]
		select {
		case <-base.done:
			base = r.replicas[(i+1)%len(r.replicas)]
		default:
		}
		code, p := bcCall(t, http.MethodGet, base.base+"/v1/broadcasts/"+id, nil)
		if code == http.StatusOK {
			if seen != nil {
				seen(p)
			}
			if p["state"] != "running" {
				return p
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("broadcast %s still running after %v", id, timeout)
	return nil
}

// perChat counts the messages the fake took per chat id, for text.
func (r *bcRig) perChat(text string) map[string]int {
	n := map[string]int{}
	for _, m := range r.api.Delivered() {
		if strings.Contains(m.Params["text"], text) {
			n[m.Params["chat_id"]]++
		}
	}
	return n
}

// A message broadcast to 2,000 chats over two replicas is paced by the
// shared bot-wide limit: no 429 at all, about 40 s at 50/s, progress
// readable throughout, every chat gets it exactly once.
func TestBroadcastMessageToTwoThousandChats(t *testing.T) {
	r := newBCRig(t)
	const n = 2000
	start := time.Now()
	code, out := bcCall(t, http.MethodPost, r.replicas[0].base+"/v1/broadcasts",
		map[string]any{"id": "final-round", "chats": chatRange(1, n), "message": "The final round starts in 10 minutes"})
	if code != http.StatusAccepted || out["total"] != float64(n) {
		t.Fatalf("POST: %d %v", code, out)
	}
	var partial, last float64
	p := r.waitBroadcast(t, "final-round", 3*time.Minute, func(p map[string]any) {
		done := p["done"].(float64)
		if done < last {
			t.Errorf("done went back from %v to %v", last, done)
		}
		if done > 0 && done < n {
			partial++
		}
		last = done
	})
	took := time.Since(start)
	t.Logf("2,000 messages delivered in %v (%.1f/s); %v partial progress reads", took, n/took.Seconds(), partial)
	if p["done"] != float64(n) || p["failed"] != 0.0 || p["pending"] != 0.0 || p["finished_at"] == nil {
		t.Errorf("final progress %v, want done 2000, nothing failed or pending, finished_at set", p)
	}
	if partial < 3 {
		t.Errorf("GET showed progress between 0 and 2000 only %v times", partial)
	}
	if got := r.api.Refused429(); got != 0 {
		t.Errorf("the Bot API answered 429 %d times, want none", got)
	}
	if took < 34*time.Second || took > 60*time.Second {
		t.Errorf("took %v, want about 40 s at 50 messages a second", took)
	}
	sent := r.perChat("final round starts")
	for i := 1; i <= n; i++ {
		if c := sent[fmt.Sprint(i)]; c != 1 {
			t.Fatalf("chat %d got the message %d times, want once", i, c)
		}
	}
}

// An event broadcast with respond: true runs one turn per chat (a 1 s
// model): every chat gets one reply, and its history holds the event and
// the reply. 200 chats keep the test short.
func TestBroadcastEventWithReplies(t *testing.T) {
	r := newBCRig(t)
	const n = 200
	code, out := bcCall(t, http.MethodPost, r.replicas[1].base+"/v1/broadcasts", map[string]any{"id": "round-2",
		"chats": chatRange(5001, n), "event": map[string]string{"text": "Round 2 has begun", "key": "round"}, "respond": true})
	if code != http.StatusAccepted {
		t.Fatalf("POST: %d %v", code, out)
	}
	p := r.waitBroadcast(t, "round-2", 2*time.Minute, nil)
	if p["done"] != float64(n) || p["state"] != "finished" {
		t.Errorf("final progress %v, want done %d, finished", p, n)
	}
	sent := r.perChat("You said:")
	for i := 5001; i < 5001+n; i++ {
		if c := sent[fmt.Sprint(i)]; c != 1 {
			t.Fatalf("chat %d got %d replies, want 1", i, c)
		}
	}
	for _, chat := range []int64{5001, 5100, 5200} {
		v, err := adminChat(r.replicas[0].base, chat)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.History) != 2 || v.History[0].Role != "event" || v.History[0].Text != "Round 2 has begun" ||
			v.History[1].Role != "assistant" || !strings.HasPrefix(v.History[1].Text, "You said:") {
			t.Errorf("chat %d history %+v, want the event then the reply", chat, v.History)
		}
	}
	if got := r.api.Refused429(); got != 0 {
		t.Errorf("the Bot API answered 429 %d times, want none", got)
	}
	if q, d := r.metric(t, "queued"), r.metric(t, "done"); q != n || d != n {
		t.Errorf("botgw_broadcast_items_total over both replicas: queued %v, done %v; want %d each", q, d, n)
	}
}

// metric sums botgw_broadcast_items_total{outcome} over the replicas.
func (r *bcRig) metric(t *testing.T, outcome string) float64 {
	var sum float64
	for _, rep := range r.replicas {
		res, err := http.Get(rep.base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		for line := range strings.SplitSeq(string(body), "\n") {
			var v float64
			if _, err := fmt.Sscanf(line, `botgw_broadcast_items_total{outcome="`+outcome+`"} %g`, &v); err == nil {
				sum += v
			}
		}
	}
	return sum
}

// kill -9 of one replica mid-broadcast: the other delivers the rest; a chat
// gets the message twice at most if its send was in flight at the kill.
func TestBroadcastSurvivesAKilledReplica(t *testing.T) {
	r := newBCRig(t)
	const n = 600
	code, _ := bcCall(t, http.MethodPost, r.replicas[0].base+"/v1/broadcasts",
		map[string]any{"id": "survive", "chats": chatRange(10001, n), "message": "Survivor round"})
	if code != http.StatusAccepted {
		t.Fatalf("POST: %d", code)
	}
	killed := false
	p := r.waitBroadcast(t, "survive", 2*time.Minute, func(p map[string]any) {
		if !killed && p["done"].(float64) >= 150 {
			r.replicas[0].kill(t)
			killed = true
		}
	})
	if !killed || p["done"] != float64(n) {
		t.Fatalf("killed %v; final progress %v, want done %d", killed, p, n)
	}
	sent, dups := r.perChat("Survivor round"), 0
	for i := 10001; i < 10001+n; i++ {
		switch c := sent[fmt.Sprint(i)]; {
		case c == 0:
			t.Errorf("chat %d never got the message", i)
		case c > 1:
			dups++
		}
	}
	t.Logf("chats that got the message twice (sends in flight at the kill): %d", dups)
	if dups > 5 {
		t.Errorf("%d chats got the message twice, more than sends in flight at a kill", dups)
	}
}

// DELETE stops the rest within a second; posting the same id again sends
// nothing more.
func TestBroadcastCancelAndRepost(t *testing.T) {
	r := newBCRig(t)
	body := map[string]any{"id": "cancel-me", "chats": chatRange(20001, 1000), "message": "Cancelled round"}
	if code, _ := bcCall(t, http.MethodPost, r.replicas[0].base+"/v1/broadcasts", body); code != http.StatusAccepted {
		t.Fatalf("POST: %d", code)
	}
	for len(r.perChat("Cancelled round")) < 100 {
		time.Sleep(50 * time.Millisecond)
	}
	code, p := bcCall(t, http.MethodDelete, r.replicas[1].base+"/v1/broadcasts/cancel-me", nil)
	if code != http.StatusOK || p["state"] != "cancelled" {
		t.Fatalf("DELETE: %d %v", code, p)
	}
	time.Sleep(time.Second) // what was on its way may still land within the second
	after := len(r.perChat("Cancelled round"))
	if code, out := bcCall(t, http.MethodPost, r.replicas[1].base+"/v1/broadcasts", body); code != http.StatusAccepted || out["total"] != 1000.0 {
		t.Fatalf("re-POST: %d %v", code, out)
	}
	time.Sleep(2 * time.Second) // nothing may arrive: there is no event to await
	if got := len(r.perChat("Cancelled round")); got != after {
		t.Errorf("%d more chats got the message after DELETE (plus 1 s) and the re-POST", got-after)
	}
	t.Logf("%d of 1000 chats got the message before the cancel took hold", after)
	_, p = bcCall(t, http.MethodGet, r.replicas[0].base+"/v1/broadcasts/cancel-me", nil)
	if p["state"] != "cancelled" || p["done"].(float64)+p["cancelled"].(float64)+p["pending"].(float64) != 1000 {
		t.Errorf("progress after cancel %v", p)
	}
}
