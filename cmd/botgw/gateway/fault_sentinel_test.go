package gateway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/state/redistest"
	"github.com/redis/go-redis/v9"
)

// A Sentinel-managed Redis on loopback: a primary, its replica and three
// sentinels, all redis-server processes of the test's own.
//
// Both servers keep an append-only file, as docs/high-availability.md asks
// of a Sentinel deployment. Without it the killed primary restarts empty,
// as a primary, and Sentinel lists it as a replica of the promoted one
// until it converts it (about ten seconds): should the sentinels fail over
// again meanwhile (one missed PING under load is enough with a short
// down-after), they promote the empty server and the replica that held
// every write resyncs from it, dropping them all. No client can prevent
// that; with the file, the restarted server holds every write the replica
// confirmed before the kill, and nothing is confirmed after it until the
// restarted server replicates again.

const sentinelMaster = "mymaster"

// sentinelSet is the servers and sentinels of one test.
type sentinelSet struct {
	primary, replica *redisServer
	sentinels        []*redisServer
	logs             []string // the sentinels' log files
}

// startSentinels runs a primary, a replica of it and three sentinels that
// watch the primary (quorum 2, down after 1 s), and waits until each
// sentinel sees the replica and the other two sentinels.
func startSentinels(t *testing.T) *sentinelSet {
	t.Helper()
	needRedisTools(t)
	set := &sentinelSet{primary: startPersistent(t)}
	set.replica = startPersistent(t, "--replicaof", "127.0.0.1", strconv.Itoa(set.primary.port))
	for range 3 {
		port := freeRedisPort(t)
		conf := filepath.Join(t.TempDir(), "sentinel.conf")
		logs := logFile(t, fmt.Sprintf("sentinel %d", port))
		body := fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor %s 127.0.0.1 %d 2\n"+
			"sentinel down-after-milliseconds %[2]s 1000\nsentinel failover-timeout %[2]s 10000\nlogfile %[4]q\n",
			port, sentinelMaster, set.primary.port, logs)
		set.logs = append(set.logs, logs)
		if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		s := &redisServer{port: port, args: []string{conf, "--sentinel"}}
		s.start(t)
		t.Cleanup(func() { s.stop(t) })
		set.sentinels = append(set.sentinels, s)
	}
	wait.Eventually(t, "the condition", set.watching)
	wait.Eventually(t, "the condition", set.acknowledging)
	return set
}

// acknowledging reports whether the replica confirms a write to the
// primary (WAIT on the connection that wrote it): a replica still in its
// first sync does not, and the gateway would refuse every write.
func (set *sentinelSet) acknowledging() bool {
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: set.primary.addr(), PoolSize: 1})
	defer c.Close()
	if err := c.Set(ctx, "botgwfault-probe", "1", time.Minute).Err(); err != nil {
		return false
	}
	n, err := c.Wait(ctx, 1, 200*time.Millisecond).Result()
	return err == nil && n == 1
}

// startPersistent runs a redis-server with an append-only file in a
// directory of its own, kept across restarts; it is stopped when the test
// ends.
func startPersistent(t *testing.T, args ...string) *redisServer {
	t.Helper()
	port := freeRedisPort(t)
	r := &redisServer{port: port, args: append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", t.TempDir(), "--save", "", "--appendonly", "yes", "--appendfsync", "always",
		"--logfile", logFile(t, fmt.Sprintf("redis-server %d", port))}, args...)}
	r.start(t)
	t.Cleanup(func() { r.stop(t) })
	return r
}

// logFile is a log file for a server of the test, whose warnings are
// logged should the test fail.
func logFile(t *testing.T, name string) string {
	path := filepath.Join(t.TempDir(), "redis.log")
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		b, _ := os.ReadFile(path)
		var lines []string
		for l := range strings.Lines(string(b)) {
			if strings.Contains(l, " # ") || strings.Contains(l, "+") || strings.Contains(l, "MASTER") {
				lines = append(lines, l)
			}
		}
		t.Logf("%s log:\n%s", name, strings.Join(lines, ""))
	})
	return path
}

// watching reports whether every sentinel knows one replica and two other
// sentinels, so a failover can be agreed.
func (set *sentinelSet) watching() bool {
	ctx := context.Background()
	for _, s := range set.sentinels {
		c := redis.NewSentinelClient(&redis.Options{Addr: s.addr()})
		replicas, err1 := c.Replicas(ctx, sentinelMaster).Result()
		others, err2 := c.Sentinels(ctx, sentinelMaster).Result()
		c.Close()
		if err1 != nil || err2 != nil || len(replicas) != 1 || len(others) != 2 {
			return false
		}
	}
	return true
}

// masterAddr is the primary the first sentinel names.
func (set *sentinelSet) masterAddr() string {
	c := redis.NewSentinelClient(&redis.Options{Addr: set.sentinels[0].addr()})
	defer c.Close()
	addr, err := c.GetMasterAddrByName(context.Background(), sentinelMaster).Result()
	if err != nil || len(addr) != 2 {
		return ""
	}
	return addr[0] + ":" + addr[1]
}

// promote has the sentinels fail over (SENTINEL FAILOVER, retried while
// they refuse: a failover in progress, no replica fit yet) until they name
// addr the primary.
func (set *sentinelSet) promote(t *testing.T, addr string) {
	t.Helper()
	c := redis.NewSentinelClient(&redis.Options{Addr: set.sentinels[0].addr()})
	defer c.Close()
	wait.Eventually(t, "the condition", func() bool {
		if set.masterAddr() == addr {
			return true
		}
		_ = c.Failover(context.Background(), sentinelMaster).Err()
		time.Sleep(200 * time.Millisecond)
		return false
	})
}

// failovers counts the failovers the first sentinel saw.
func (set *sentinelSet) failovers() int {
	b, _ := os.ReadFile(set.logs[0])
	return strings.Count(string(b), "+switch-master")
}

// keys is the redis section for the gateway: through the sentinels, every
// acknowledgement confirmed by the replica.
func (set *sentinelSet) keys() string {
	addrs := make([]string, len(set.sentinels))
	for i, s := range set.sentinels {
		addrs[i] = strconv.Quote(s.addr())
	}
	return fmt.Sprintf("sentinel: {master: %s, addrs: [%s]}, min_replicas: 1", sentinelMaster, strings.Join(addrs, ", "))
}

// TestFaultSentinelFailoverLosesNoAcknowledgedMessage: under traffic from
// 40 chats, the primary is killed (kill -9); the sentinels promote the
// replica; the killed server is restarted from its file, as a supervisor
// would, and the sentinels are made to fail over again, back to it,
// whether or not it has caught up as a replica by then. Every message
// acknowledged to the platform is in its chat's history, once and in
// order; replies sent twice are counted and reported.
func TestFaultSentinelFailoverLosesNoAcknowledgedMessage(t *testing.T) {
	redistest.URL(t) // CI gate: this test runs its own servers
	set := startSentinels(t)
	sc := newScenario(t, redisTarget{keys: set.keys()}, 2)
	chats := chatIDs(40)
	traffic := sc.startTraffic(chats, 5, 10, 100*time.Millisecond)
	sc.answered(20) // the traffic is flowing
	old := set.primary.addr()
	set.primary.kill(t)
	killed := time.Now()
	wait.Eventually(t, "the condition", func() bool { a := set.masterAddr(); return a != "" && a != old })
	t.Logf("the sentinels promoted %s %s after the kill", set.masterAddr(), time.Since(killed).Round(100*time.Millisecond))
	set.primary.start(t) // from its file; the sentinels make it a replica
	back := time.Now()
	set.promote(t, old) // and fail over to it again, maybe before it has caught up
	t.Logf("the sentinels failed back to %s %s after its restart", old, time.Since(back).Round(100*time.Millisecond))
	refused := traffic.wait()
	sc.settle(chats, 5, 90*time.Second, false)
	turns, sent := 0, len(sc.api.Delivered())
	for _, c := range chats {
		v, err := adminChat(sc.replicas[0].base, c)
		if err != nil {
			t.Fatal(err)
		}
		turns += v.Turns
	}
	t.Logf("%d failovers; %d updates refused meanwhile (redelivered); %d turns, %d replies sent, %d sent twice",
		set.failovers(), len(refused), turns, sent, sent-turns)
}
