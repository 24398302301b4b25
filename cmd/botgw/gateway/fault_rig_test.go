package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/syncbuf"
	"github.com/botgw/botgw/providers/providertest"
)

// The fault-injection suite runs gateway replicas as processes of the built
// binary over one real Redis, feeds them Telegram updates through their
// webhooks, answers their LLM calls from a Chat Completions fake and their
// sends from a Bot API fake, and reads the outcome through the admin API.

const (
	faultSecret     = "fault-secret"
	faultAdminToken = "fault-admin-token"
)

// faultLLM is the Chat Completions fake (providertest) answering with an
// echo of the last user message. Each replica gets its own API key, so the
// fake knows which replica calls; calls from a held key block until the
// caller goes away (the replica is killed) or the key is let go.
type faultLLM struct {
	api   *providertest.OpenAI
	mu    sync.Mutex
	calls map[string]int // API key → calls
	held  map[string]chan struct{}
}

func newFaultLLM(t *testing.T) (*faultLLM, string) {
	f := &faultLLM{calls: map[string]int{}, held: map[string]chan struct{}{}}
	t.Cleanup(f.releaseAll) // before the server closes: cleanups run last first
	f.api = providertest.NewOpenAI(t, f.respond)
	return f, f.api.URL + "/v1"
}

func (f *faultLLM) respond(n int, w http.ResponseWriter, r *http.Request) {
	key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !f.wait(r.Context(), key) {
		return // the replica went away mid-call
	}
	providertest.Echo()(n, w, r)
}

// wait counts the call, then waits out any hold on key; false when the
// caller disconnected first.
func (f *faultLLM) wait(ctx context.Context, key string) bool {
	f.mu.Lock()
	f.calls[key]++
	hold := f.held[key]
	f.mu.Unlock()
	if hold == nil {
		return true
	}
	select {
	case <-hold:
		return true
	case <-ctx.Done():
		return false
	}
}

// hold makes calls with key block until release.
func (f *faultLLM) hold(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held[key] = make(chan struct{})
}

func (f *faultLLM) releaseAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, ch := range f.held {
		close(ch)
		delete(f.held, k)
	}
}

func (f *faultLLM) callsBy(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

// load is scenario traffic running in the background.
type load struct {
	done    chan struct{}
	refused []int // the statuses refused before a 200; read after done
}

// startTraffic runs sc.traffic in the background.
func (sc *scenario) startTraffic(chats []int64, perChat, workers int, gap time.Duration) *load {
	l := &load{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.refused = sc.traffic(chats, perChat, workers, gap)
	}()
	return l
}

// wait waits for the traffic to end and returns the statuses refused.
func (l *load) wait() []int {
	<-l.done
	return l.refused
}

// running reports whether the traffic is still going on.
func (l *load) running() bool {
	select {
	case <-l.done:
		return false
	default:
		return true
	}
}

// replica is one gateway process of the built binary; it keeps its address
// across restarts, as a pod behind a load balancer would.
type replica struct {
	process
	name    string
	bin     string // empty: binary(t)
	cfgPath string
	addr    string
	base    string
	logs    syncbuf.Buffer
}

// startReplica writes config and starts the process; it is stopped (SIGTERM)
// when the test ends and its output is logged if the test failed.
func startReplica(t *testing.T, name, config string) *replica {
	t.Helper()
	addr := freePort(t)
	r := newReplica(t, name, config, addr, "http://"+addr)
	r.start(t)
	return r
}

// newReplica is a replica listening on listen ("0.0.0.0:port" for a
// non-loopback listen) and reached at base, not started yet; it is
// stopped and its output logged on failure as startReplica's are.
func newReplica(t *testing.T, name, config, listen, base string) *replica {
	t.Helper()
	r := &replica{name: name, cfgPath: e2e.WriteFile(t, config), addr: listen, base: base}
	t.Cleanup(func() {
		r.stop(t)
		checkRaces(t, "replica "+r.name, r.logs.String())
		if t.Failed() {
			t.Logf("replica %s output:\n%s", r.name, r.logs.String())
		}
	})
	return r
}

// start runs the process and waits until /healthz answers.
func (r *replica) start(t *testing.T) {
	t.Helper()
	bin := r.bin
	if bin == "" {
		bin = binary(t)
	}
	r.run(t, exec.Command(bin, "serve", "-config", r.cfgPath, "-listen", r.addr), &r.logs)
	e2e.AwaitHealthy(t, r.base, "replica "+r.name) // the replica's output is logged when this fails
}

// stop sends SIGTERM and waits for a graceful exit; a no-op when stopped.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	r.terminate(t, "replica "+r.name, syscall.SIGTERM, 30*time.Second)
}

// faultConfig is a replica's config: Telegram webhooks, the OpenAI fake
// under the replica's own key, short leases so fail-over takes seconds.
func faultConfig(redis, prefix, llmURL, key, botAPI string) string {
	return fmt.Sprintf(`
redis: {%s, key_prefix: %s, lease_ttl: 2s, visibility: 1s}
provider: {kind: openai, base_url: %q, api_key: %s, model: gpt-4o-mini, timeout: 20s, max_retries: 0}
compaction: {strategy: none}
channels:
  telegram: {token: %q, webhook_secret: %s, api_url: %q, rate_per_second: 1000, burst: 100}
admin: {token: %s}
log: {level: warn, format: text}
`, redis, prefix, llmURL, key, e2eBotToken, faultSecret, botAPI, faultAdminToken)
}

// tgText is a private-chat text update from user (and chat) chat.
func tgText(chat int64, msgID int, text string) string {
	b, _ := json.Marshal(map[string]any{
		"update_id": chat*100 + int64(msgID),
		"message": map[string]any{
			"message_id": msgID, "date": 1732270000, "text": text,
			"from": map[string]any{"id": chat, "is_bot": false, "first_name": "Player"},
			"chat": map[string]any{"id": chat, "type": "private", "first_name": "Player"},
		},
	})
	return string(b)
}

// postUpdate posts one update to base and returns the status (0 when the
// replica did not answer at all).
func postUpdate(base, update string) int {
	return postTelegram(base, faultSecret, update)
}

// postTelegram posts one update to base with the webhook secret and
// returns the status (0 when the gateway did not answer at all).
func postTelegram(base, secret, update string) int {
	return e2e.Post(base+"/webhooks/telegram", "application/json", update, "X-Telegram-Bot-Api-Secret-Token", secret)
}

// deliver plays Telegram and a load balancer: it posts update to the
// replicas in turn, starting at first, until one answers 200, as Telegram
// redelivers an update until it is acknowledged. It returns the statuses
// seen before the 200.
func deliver(t *testing.T, replicas []*replica, first int, update string) []int {
	var refused []int
	deadline := time.Now().Add(60 * time.Second)
	for i := first; time.Now().Before(deadline); i++ {
		code := postUpdate(replicas[i%len(replicas)].base, update)
		if code == http.StatusOK {
			return refused
		}
		refused = append(refused, code)
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("update not acknowledged within 60s: statuses %v", refused)
	return refused
}

// adminChat reads a chat through the admin API of base.
func adminChat(base string, chat int64) (view struct {
	Pending, Outbox, Turns int
	History                []botgw.Message
}, err error) {
	k := url.PathEscape(fmt.Sprintf("telegram:%d", chat))
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/admin/chats/"+k, nil)
	req.Header.Set("Authorization", "Bearer "+faultAdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return view, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return view, fmt.Errorf("admin show %s: %s", k, res.Status)
	}
	return view, json.NewDecoder(res.Body).Decode(&view)
}

// userLines are the user's messages of a history, one per inbound message
// (a turn joins a burst with newlines).
func userLines(h []botgw.Message) []string {
	var out []string
	for _, m := range h {
		if m.Role == botgw.RoleUser {
			out = append(out, strings.Split(m.Text, "\n")...)
		}
	}
	return out
}

// sentTo counts the replies the Bot API fake took for chat.
func sentTo(api *channeltest.BotAPI, chat int64) int {
	n := 0
	for _, c := range api.Delivered() {
		if c.Params["chat_id"] == fmt.Sprint(chat) {
			n++
		}
	}
	return n
}
