package gateway

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/wait"
	"github.com/redis/go-redis/v9"
)

// TestFaultRedisOutageSendsNoReplyTwice stops Redis for 3.5 s while 50
// chats talk to two live replicas. Replies sent just before the outage
// cannot be removed from the outbox until Redis is back, and the leases
// expire meanwhile; still every message is answered exactly once, in order.
func TestFaultRedisOutageSendsNoReplyTwice(t *testing.T) {
	rs, sc := onOwnRedis(t, 2)
	chats := chatIDs(50)
	traffic := sc.startTraffic(chats, 6, 25, 100*time.Millisecond)
	wait.Eventually(t, "the condition", func() bool { return len(sc.api.CallsTo("sendMessage")) >= 20 }) // replies flowing
	rs.stop(t)
	time.Sleep(3500 * time.Millisecond) // the outage
	rs.start(t)
	refused := traffic.wait()
	if !slices.Contains(refused, http.StatusServiceUnavailable) {
		t.Errorf("no update was refused with 503 during the outage (refused: %v): it missed the load", refused)
	}
	sc.settle(chats, 6, 60*time.Second, true)
	t.Logf("%d replies to 50 chats × 6 messages; %d updates refused during the outage", len(sc.api.CallsTo("sendMessage")), len(refused))
}

// TestFaultFullRedisRefusesOnlyWhatItDidNotStore fills Redis to its
// maxmemory under noeviction. Each update is posted once: every 503 left
// no key behind, every 200 is answered exactly once after Redis gets room,
// and /readyz fails while Redis refuses writes.
func TestFaultFullRedisRefusesOnlyWhatItDidNotStore(t *testing.T) {
	rs, sc := onOwnRedis(t, 1)
	a := sc.replicas[0]
	sc.llm.hold("sk-a") // turns wait at the model: input is all that grows
	rc := redis.NewClient(&redis.Options{Addr: rs.addr()})
	defer rc.Close()
	fill(t, rc, 1<<20)
	chats := chatIDs(1000)
	var accepted, refused []int64
	long := strings.Repeat("x", 3000)
	for _, c := range chats {
		switch code := postUpdate(a.base, tgText(c, 1, lineOf(c, 1)+" "+long)); code {
		case http.StatusOK:
			accepted = append(accepted, c)
		case http.StatusServiceUnavailable:
			refused = append(refused, c)
		default:
			t.Fatalf("update to chat %d: status %d", c, code)
		}
		if len(refused) >= 10 {
			break
		}
	}
	if len(refused) < 10 || len(accepted) == 0 {
		t.Fatalf("%d accepted, %d refused: Redis never filled up", len(accepted), len(refused))
	}
	fill(t, rc, -64<<10) // firmly full: small writes are refused too, not only large input
	if code := status(a.base + "/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz with Redis refusing writes: %d, want 503", code)
	}
	for _, c := range refused {
		if keys := chatKeys(t, rc, sc.prefix, c); len(keys) > 0 {
			t.Errorf("chat %d was answered 503 but Redis holds %q", c, keys)
		}
	}
	if err := rc.ConfigSet(context.Background(), "maxmemory", "0").Err(); err != nil {
		t.Fatal(err)
	}
	sc.llm.releaseAll()
	wait.Eventually(t, "the condition", func() bool { return status(a.base+"/readyz") == http.StatusOK })
	for _, c := range accepted {
		sc.settleChat(c, []string{lineOf(c, 1) + " " + long}, time.Now().Add(60*time.Second), true)
	}
	t.Logf("%d updates accepted and answered once, %d refused and not stored", len(accepted), len(refused))
}

// fill sets maxmemory to what Redis uses now plus room (negative: less),
// under noeviction.
func fill(t *testing.T, rc *redis.Client, room int64) {
	t.Helper()
	ctx := context.Background()
	info, err := rc.Info(ctx, "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	var used int64
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			fmt.Sscan(v, &used)
		}
	}
	if used == 0 {
		t.Fatalf("no used_memory in INFO memory:\n%s", info)
	}
	for k, v := range map[string]string{"maxmemory-policy": "noeviction", "maxmemory": fmt.Sprint(used + room)} {
		if err := rc.ConfigSet(ctx, k, v).Err(); err != nil {
			t.Fatalf("CONFIG SET %s: %v", k, err)
		}
	}
}

// chatKeys lists what Redis holds for a Telegram chat: its own keys and
// its work mark.
func chatKeys(t *testing.T, rc *redis.Client, prefix string, chat int64) []string {
	t.Helper()
	ctx := context.Background()
	member := fmt.Sprintf("telegram:%d", chat)
	keys, err := rc.Keys(ctx, fmt.Sprintf("%s:{%s}:*", prefix, member)).Result()
	if err != nil {
		t.Fatal(err)
	}
	for shard := range 16 {
		work := fmt.Sprintf("%s:work:{%d}", prefix, shard)
		if rc.ZScore(ctx, work, member).Err() == nil {
			keys = append(keys, work+" "+member)
		}
	}
	return keys
}

// TestFaultKillUnderLoadLosesNothing kills one of two replicas with
// SIGKILL while 50 chats talk to them, and restarts it. Nothing is lost;
// a reply may repeat only if it was in flight at the kill (sent, not yet
// recorded): the test reports how many did.
func TestFaultKillUnderLoadLosesNothing(t *testing.T) {
	sc := newScenario(t, sharedRedis(t), 2)
	chats := chatIDs(50)
	traffic := sc.startTraffic(chats, 6, 25, 100*time.Millisecond)
	wait.Eventually(t, "the condition", func() bool { return len(sc.api.CallsTo("sendMessage")) >= 40 })
	a := sc.replicas[0]
	a.kill(t)
	a.start(t)
	traffic.wait()
	sc.settle(chats, 6, 60*time.Second, false)
	dups := 0
	for _, c := range chats {
		v, err := adminChat(sc.replicas[1].base, c)
		if err != nil {
			t.Fatal(err)
		}
		extra := sentTo(sc.api, c) - v.Turns
		dups += extra
		if extra > 1 {
			t.Errorf("chat %d got %d replies more than its %d turns: more than the one in flight at the kill", c, extra, v.Turns)
		}
	}
	t.Logf("kill -9 under load: 0 lost, %d duplicate replies (sends in flight at the kill)", dups)
}
