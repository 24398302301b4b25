package gateway

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/state/redistest"

	"github.com/redis/go-redis/v9"
)

// scenario is a set of replicas over one Redis with shared fakes.
type scenario struct {
	t        *testing.T
	llm      *faultLLM
	api      *channeltest.BotAPI
	replicas []*replica
	prefix   string // the replicas' redis.key_prefix
}

// redisTarget is where a scenario's replicas keep their state.
type redisTarget struct {
	keys   string        // the YAML of the redis section's url (and cluster)
	shared *redis.Client // set for a Redis the test does not own: clean up after
}

// sharedRedis is the CI Redis of BOTGW_TEST_REDIS_URL, or a skip.
func sharedRedis(t *testing.T) redisTarget {
	u := redistest.URL(t)
	o, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("BOTGW_TEST_REDIS_URL: %v", err)
	}
	return redisTarget{keys: fmt.Sprintf("url: %q", u), shared: redis.NewClient(o)}
}

// newScenario starts n replicas named a, b, ... (API keys sk-a, sk-b, ...)
// over target, under a fresh key prefix; edits change each replica's
// config (faultConfig) before it starts.
func newScenario(t *testing.T, target redisTarget, n int, edits ...func(string) string) *scenario {
	t.Helper()
	llm, llmURL := newFaultLLM(t)
	sc := &scenario{t: t, llm: llm, api: newBotAPI(t)}
	prefix := "botgwfault-" + randomSuffix()
	sc.prefix = prefix
	if target.shared != nil {
		cleanRedis(t, target.shared, prefix+":*")
	}
	for i := range n {
		name := string(rune('a' + i))
		cfg := faultConfig(target.keys, prefix, llmURL, "sk-"+name, sc.api.URL)
		for _, edit := range edits {
			cfg = edit(cfg)
		}
		sc.replicas = append(sc.replicas, startReplica(t, name, cfg))
	}
	return sc
}

func randomSuffix() string { return fmt.Sprintf("%x", time.Now().UnixNano()&0xffffffffff) }

// chatIDs are n Telegram private chat ids for this test.
func chatIDs(n int) []int64 {
	base := time.Now().UnixNano() % 1_000_000 * 1000
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = 100_000_000_000 + base + int64(i)
	}
	return ids
}

func lineOf(chat int64, i int) string { return fmt.Sprintf("chat %d message %d", chat, i) }

// traffic posts perChat messages to every chat, each chat's messages in
// order, alternating replicas, over workers chats at a time, pausing gap
// between a chat's messages. It returns the refused statuses seen.
func (sc *scenario) traffic(chats []int64, perChat, workers int, gap time.Duration) []int {
	var (
		mu      sync.Mutex
		refused []int
		wg      sync.WaitGroup
	)
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for c := range next {
				for i := 1; i <= perChat; i++ {
					got := deliver(sc.t, sc.replicas, c+i, tgText(chats[c], i, lineOf(chats[c], i)))
					mu.Lock()
					refused = append(refused, got...)
					mu.Unlock()
					time.Sleep(gap)
				}
			}
		})
	}
	for c := range chats {
		next <- c
	}
	close(next)
	wg.Wait()
	return refused
}

// answered waits until the fake Bot API got n more replies than when called.
func (sc *scenario) answered(n int) {
	sc.t.Helper()
	before := len(sc.api.Delivered())
	wait.Eventually(sc.t, "the replies delivered", func() bool { return len(sc.api.Delivered()) >= before+n })
}

// settle waits until every chat holds perChat messages and has no pending
// input or undelivered reply, then checks each history holds the messages
// once each and in order, and that every turn's reply reached the chat
// (exactly once when exact is set, at least once otherwise).
func (sc *scenario) settle(chats []int64, perChat int, within time.Duration, exact bool) {
	sc.t.Helper()
	var want [][]string
	for _, c := range chats {
		var w []string
		for i := 1; i <= perChat; i++ {
			w = append(w, lineOf(c, i))
		}
		want = append(want, w)
	}
	deadline := time.Now().Add(within)
	for i, c := range chats {
		sc.settleChat(c, want[i], deadline, exact)
	}
}

func (sc *scenario) settleChat(chat int64, want []string, deadline time.Time, exact bool) {
	sc.t.Helper()
	for {
		v, err := adminChat(sc.replicas[0].base, chat)
		done := err == nil && v.Pending == 0 && v.Outbox == 0 && len(userLines(v.History)) >= len(want)
		if done {
			if got := userLines(v.History); !slices.Equal(got, want) {
				sc.t.Errorf("chat %d history holds %q, want %q", chat, got, want)
			}
			sent := sentTo(sc.api, chat)
			if v.Turns == 0 || sent < v.Turns || (exact && sent != v.Turns) {
				sc.t.Errorf("chat %d: %d turns, %d replies sent", chat, v.Turns, sent)
			}
			return
		}
		if time.Now().After(deadline) {
			sc.t.Fatalf("chat %d did not settle: %+v, err %v\nwhat the replicas complained of:\n%s", chat, v, err, sc.complaints(chat))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cleanRedis deletes the keys the scenario's replicas left in a shared
// Redis.
func cleanRedis(t *testing.T, c *redis.Client, pattern string) {
	t.Cleanup(func() {
		ctx := context.Background()
		for it := c.Scan(ctx, 0, pattern, 1000).Iterator(); it.Next(ctx); {
			c.Del(ctx, it.Val())
		}
		c.Close()
	})
}

// eachTarget runs a test on the CI Redis and on a local Redis Cluster of
// three masters.
func eachTarget(t *testing.T, test func(t *testing.T, target redisTarget)) {
	t.Run("redis", func(t *testing.T) { test(t, sharedRedis(t)) })
	t.Run("cluster", func(t *testing.T) {
		redistest.URL(t) // CI gate: the cluster is the test's own
		cl := startCluster(t, 3)
		test(t, redisTarget{keys: fmt.Sprintf("url: %q, cluster: true", cl.url())})
	})
}

func TestFaultTwoReplicasKeepEveryChatInOrder(t *testing.T) {
	eachTarget(t, testTwoReplicas)
}

func testTwoReplicas(t *testing.T, target redisTarget) {
	sc := newScenario(t, target, 2)
	chats := chatIDs(200)
	if refused := sc.traffic(chats, 5, 16, 0); len(refused) > 0 {
		t.Errorf("healthy replicas refused updates: %v", refused)
	}
	sc.settle(chats, 5, 60*time.Second, true)
}

func TestFaultKilledReplicasChatsMoveToTheOther(t *testing.T) {
	eachTarget(t, testKilledReplica)
}

func testKilledReplica(t *testing.T, target redisTarget) {
	sc := newScenario(t, target, 2)
	a, b := sc.replicas[0], sc.replicas[1]
	sc.llm.hold("sk-a") // a's turns never get an answer
	chats := chatIDs(10)
	for _, c := range chats {
		deliver(t, []*replica{a}, 0, tgText(c, 1, lineOf(c, 1)))
	}
	wait.Eventually(t, "the condition", func() bool { return sc.llm.callsBy("sk-a") == len(chats) })
	a.kill(t)
	killed := time.Now()
	sc.replicas = []*replica{b}
	// Lease TTL (2s) + visibility (1s) + a poll (1s), with room for a slow CI.
	sc.settle(chats, 1, 15*time.Second, true)
	t.Logf("replica b answered every chat of the killed replica within %s", time.Since(killed).Round(100*time.Millisecond))
	if n := sc.llm.callsBy("sk-b"); n != len(chats) {
		t.Errorf("replica b made %d LLM calls, want one per chat (%d)", n, len(chats))
	}
}

func TestFaultRollingRestartLosesNothing(t *testing.T) {
	eachTarget(t, testRollingRestart)
}

func testRollingRestart(t *testing.T, target redisTarget) {
	sc := newScenario(t, target, 2)
	chats := chatIDs(40)
	traffic := sc.startTraffic(chats, 6, 8, 150*time.Millisecond)
	for _, r := range sc.replicas {
		sc.answered(5) // restart while the traffic is being answered
		r.stop(t)
		r.start(t)
	}
	if !traffic.running() {
		t.Error("the traffic ended before the last restart: nothing was tested")
	}
	traffic.wait()
	sc.settle(chats, 6, 30*time.Second, false)
}

func TestFaultRedisRestartIsRefusedThenRecovered(t *testing.T) {
	rs, sc := onOwnRedis(t, 2)
	chats := chatIDs(20)
	traffic := sc.startTraffic(chats, 8, 10, 100*time.Millisecond)
	sc.answered(5) // the traffic is flowing
	rs.stop(t)
	wait.Eventually(t, "the condition", func() bool { return status(sc.replicas[0].base+"/readyz") == http.StatusServiceUnavailable })
	if code := postUpdate(sc.replicas[1].base, tgText(1, 1, "while Redis is down")); code != http.StatusServiceUnavailable {
		t.Errorf("update while Redis is down: %d, want 503", code)
	}
	time.Sleep(time.Second) // the outage lasts a second while the traffic goes on
	rs.start(t)
	refused := traffic.wait()
	wait.Eventually(t, "the condition", func() bool { return status(sc.replicas[0].base+"/readyz") == http.StatusOK })
	if !slices.Contains(refused, http.StatusServiceUnavailable) {
		t.Errorf("no update was refused with 503 while Redis was down (refused: %v)", refused)
	}
	sc.settle(chats, 8, 30*time.Second, false)
}

func status(url string) int {
	res, err := http.Get(url)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

// TestFaultSIGTERMFinishesTheTurnInFlight: a replica told to stop while
// the model is still answering waits for the answer, delivers the reply,
// and only then exits (cleanly, well within its bounded wait).
func TestFaultSIGTERMFinishesTheTurnInFlight(t *testing.T) {
	sc := newScenario(t, sharedRedis(t), 1)
	a := sc.replicas[0]
	sc.llm.hold("sk-a")
	const player = 7001
	deliver(t, sc.replicas, 0, tgText(player, 1, "are you still there?"))
	wait.Eventually(t, "the condition", func() bool { return sc.llm.callsBy("sk-a") == 1 })
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// shutting down (no longer listening), the turn still waiting for the model
	wait.Eventually(t, "the condition", func() bool { return status(a.base+"/healthz") == 0 })
	select {
	case <-a.done:
		t.Fatal("the replica exited with a turn in flight")
	case <-time.After(500 * time.Millisecond): // absence is the point: it must not exit
	}
	sc.llm.releaseAll()
	select {
	case <-a.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the replica did not exit within 30s of SIGTERM")
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	if n := sentTo(sc.api, player); n != 1 {
		t.Errorf("the player got %d replies, want the in-flight turn's one", n)
	}
}

// complaints are the distinct warnings and errors the replicas logged
// about chat (0: any chat) or about no chat in particular (the relay, the
// prune), each with how often it came, so a failure names its cause (a
// Redis error, a lost lease) without reading every replica's output.
func (sc *scenario) complaints(chat int64) string {
	mine := fmt.Sprintf("chat=telegram:%d ", chat)
	seen := map[string]int{}
	var order []string
	for _, r := range sc.replicas {
		for line := range strings.Lines(r.logs.String()) {
			line = strings.TrimSpace(line) + " "
			if !strings.Contains(line, "level=WARN") && !strings.Contains(line, "level=ERROR") {
				continue
			}
			if chat != 0 && strings.Contains(line, "chat=") && !strings.Contains(line, mine) {
				continue
			}
			key := r.name + ": " + complaint(line)
			if seen[key]++; seen[key] == 1 {
				order = append(order, key)
			}
		}
	}
	var b strings.Builder
	for _, k := range order {
		fmt.Fprintf(&b, "  %d× %s\n", seen[k], k)
	}
	if b.Len() == 0 {
		return "  (nothing)\n"
	}
	return b.String()
}

// complaint is a log line's level, message and error, without the time
// and the attributes that vary from one occurrence to the next.
func complaint(line string) string {
	_, rest, _ := strings.Cut(strings.TrimSpace(line), "level=")
	level, rest, _ := strings.Cut(rest, " ")
	out := level
	for _, attr := range []string{"msg=", "err="} {
		if _, v, ok := strings.Cut(rest, " "+attr); ok || strings.HasPrefix(rest, attr) {
			if !ok {
				v = strings.TrimPrefix(rest, attr)
			}
			out += " " + attr + quoted(v)
		}
	}
	return out
}

// quoted is the value at the start of v: a quoted string or one word.
func quoted(v string) string {
	if !strings.HasPrefix(v, `"`) {
		w, _, _ := strings.Cut(v, " ")
		return w
	}
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '"':
			return v[:i+1]
		}
	}
	return v
}
