package gateway

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/state/redistest"
	"github.com/redis/go-redis/v9"
)

// redisServer is a redis-server process the test owns, so it can stop and
// restart it.
type redisServer struct {
	process
	port int
	args []string
}

// onOwnRedis is a scenario of n replicas (newScenario, with edits) on a
// redis-server of the test's own (startRedis), which the test may stop,
// kill and restart. Without BOTGW_TEST_REDIS_URL it skips, as the other
// real-Redis tests do, so CI runs it.
func onOwnRedis(t *testing.T, n int, edits ...func(string) string) (*redisServer, *scenario) {
	t.Helper()
	redistest.URL(t)
	rs := startRedis(t)
	return rs, newScenario(t, redisTarget{keys: fmt.Sprintf("url: %q", rs.url())}, n, edits...)
}

// needRedisTools skips unless redis-server and redis-cli are on PATH.
func needRedisTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH: skipping a test that runs its own Redis", tool)
		}
	}
}

// startRedis runs a private redis-server on loopback with every write
// fsynced to its append-only file, so a restart keeps what it acknowledged.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	needRedisTools(t)
	port := freeRedisPort(t)
	r := &redisServer{port: port, args: []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", t.TempDir(), "--appendonly", "yes", "--appendfsync", "always", "--save", ""}}
	r.start(t)
	t.Cleanup(func() { r.stop(t) })
	return r
}

func (r *redisServer) url() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

func (r *redisServer) addr() string { return fmt.Sprintf("127.0.0.1:%d", r.port) }

// start runs the server and waits until it answers PING.
func (r *redisServer) start(t *testing.T) {
	t.Helper()
	r.run(t, exec.Command("redis-server", r.args...), nil)
	c := redis.NewClient(&redis.Options{Addr: r.addr()})
	defer c.Close()
	wait.Eventually(t, "the condition", func() bool { return c.Ping(context.Background()).Err() == nil })
}

// stop shuts the server down with SIGTERM (it flushes its files) and waits.
func (r *redisServer) stop(t *testing.T) {
	t.Helper()
	r.terminate(t, fmt.Sprint("redis-server on ", r.port), syscall.SIGTERM, 10*time.Second)
}

// freeRedisPort is a free loopback port whose cluster bus port (+10000) is
// free too.
func freeRedisPort(t *testing.T) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		bus, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+10000))
		l.Close()
		if err == nil {
			bus.Close()
			return port
		}
	}
	t.Fatal("no free port pair for redis-server")
	return 0
}

// redisCluster is a local Redis Cluster of masters only.
type redisCluster struct{ nodes []*redisServer }

// startCluster runs n cluster-enabled servers and joins them with
// redis-cli --cluster create, as an operator would.
func startCluster(t *testing.T, n int) *redisCluster {
	t.Helper()
	needRedisTools(t)
	cl := &redisCluster{}
	create := []string{"--cluster", "create"}
	for range n {
		port := freeRedisPort(t)
		r := &redisServer{port: port, args: []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--dir", t.TempDir(), "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--save", "", "--appendonly", "no"}}
		r.start(t)
		t.Cleanup(func() { r.stop(t) })
		cl.nodes = append(cl.nodes, r)
		create = append(create, r.addr())
	}
	create = append(create, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command("redis-cli", create...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	wait.Eventually(t, "the condition", cl.ready)
	return cl
}

// ready reports whether every node sees the cluster as ok with all nodes.
func (cl *redisCluster) ready() bool {
	for _, r := range cl.nodes {
		c := redis.NewClient(&redis.Options{Addr: r.addr()})
		info, err := c.ClusterInfo(context.Background()).Result()
		c.Close()
		want := fmt.Sprintf("cluster_known_nodes:%d", len(cl.nodes))
		if err != nil || !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, want) {
			return false
		}
	}
	return true
}

// url is a cluster seed URL naming every node.
func (cl *redisCluster) url() string {
	u := "redis://" + cl.nodes[0].addr()
	for i, r := range cl.nodes[1:] {
		sep := "&"
		if i == 0 {
			sep = "?"
		}
		u += sep + "addr=" + r.addr()
	}
	return u
}
