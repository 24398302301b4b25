package state

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/state/redistest"
)

// server is a redis-server process of the test's own.
type server struct {
	addr string
	cmd  *exec.Cmd
}

// startServer runs redis-server on a free loopback port with args; it is
// killed when the test ends. Skipped without BOTGW_TEST_REDIS_URL (the CI
// gate of tests that run their own servers) or redis-server.
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	redistest.URL(t)
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not on PATH: skipping a test that runs its own Redis")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	args = append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir()}, args...)
	srv := &server{addr: fmt.Sprintf("127.0.0.1:%d", port), cmd: exec.Command("redis-server", args...)}
	if err := srv.cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(srv.kill)
	c := srv.client()
	defer c.Close()
	wait.Eventually(t, "the condition", func() bool { return c.Ping(context.Background()).Err() == nil })
	return srv
}

func (s *server) client() *redis.Client { return redis.NewClient(&redis.Options{Addr: s.addr}) }

// kill ends the server at once; a no-op when it has ended.
func (s *server) kill() {
	if s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
	}
}

// replicated waits until c's server reports a connected replica.
func replicated(c *redis.Client) bool {
	info, err := c.Info(context.Background(), "replication").Result()
	return err == nil && strings.Contains(info, "connected_slaves:1") && strings.Contains(info, "state=online")
}

// primaryWithReplica is a primary and its replica.
func primaryWithReplica(t *testing.T) (primary, replica *server) {
	primary = startServer(t)
	host, port, _ := net.SplitHostPort(primary.addr)
	replica = startServer(t, "--replicaof", host, port)
	c := primary.client()
	defer c.Close()
	wait.Eventually(t, "the condition", func() bool { return replicated(c) })
	return primary, replica
}

// clusterWithReplica is a one-shard cluster: a primary owning every slot
// and its replica.
func clusterWithReplica(t *testing.T) (primary, replica *server) {
	conf := func() []string { return []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"} }
	primary, replica = startServer(t, conf()...), startServer(t, conf()...)
	ctx := context.Background()
	p, r := primary.client(), replica.client()
	defer p.Close()
	defer r.Close()
	if err := p.Do(ctx, "cluster", "addslotsrange", 0, 16383).Err(); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(primary.addr)
	if err := r.ClusterMeet(ctx, host, port).Err(); err != nil {
		t.Fatal(err)
	}
	id, err := p.ClusterMyID(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, "the condition", func() bool { return r.Do(ctx, "cluster", "replicate", id).Err() == nil })
	wait.Eventually(t, "the condition", func() bool {
		info, err := r.ClusterInfo(ctx).Result()
		return err == nil && strings.Contains(info, "cluster_state:ok") && replicated(p)
	})
	return primary, replica
}

// replicatedStore is a store over c that waits for one replica.
func replicatedStore(t *testing.T, c redis.UniversalClient) *Store {
	opts := suiteOpts
	opts.MinReplicas, opts.ReplicaTimeout = 1, MaxReplicaTimeout // a loaded CI machine answers slowly
	s := New(c, "", opts)
	s.log = testLogger(t)
	t.Cleanup(func() { s.Close() })
	return s
}

// TestMinReplicasRunsTheSuite: every store operation works with WAIT on a
// primary that has a replica.
func TestMinReplicasRunsTheSuite(t *testing.T) {
	primary, _ := primaryWithReplica(t)
	runSuite(t, func(t testing.TB, opts Options) *harness {
		opts.MinReplicas, opts.ReplicaTimeout = 1, MaxReplicaTimeout
		s := New(primary.client(), "botgwtest-"+newToken()[:12], opts)
		s.log = testLogger(t)
		t.Cleanup(func() { s.Close() })
		return &harness{s: s, advance: time.Sleep}
	})
}

// TestMinReplicasRefusesUnconfirmedWrites: once the replica is gone, input
// is refused (its platform retries) and a turn does not count as
// committed; without min_replicas the same primary takes both.
func TestMinReplicasRefusesUnconfirmedWrites(t *testing.T) {
	for name, setup := range map[string]func(*testing.T) (*server, *server){
		"single": primaryWithReplica, "cluster": clusterWithReplica,
	} {
		t.Run(name, func(t *testing.T) {
			primary, replica := setup(t)
			var c redis.UniversalClient = primary.client()
			if name == "cluster" {
				c = redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{primary.addr}})
			}
			s := replicatedStore(t, c)
			k := chat("replicated")
			if err := s.Append(t.Context(), text(k, "m1", "kept by two servers")); err != nil {
				t.Fatalf("Append with a live replica: %v", err)
			}
			snap, err := s.Begin(t.Context(), k, "")
			if err != nil {
				t.Fatal(err)
			}
			replica.kill()
			err = s.Append(t.Context(), text(k, "m2", "kept by one server"))
			if !errors.Is(err, ErrNotReplicated) {
				t.Errorf("Append without the replica = %v, want ErrNotReplicated", err)
			}
			err = s.Commit(t.Context(), k, botgw.Commit{Lease: snap.Lease, Blob: []byte("s"), Consumed: 1,
				Outbox: []botgw.Outbound{{Chat: k, ID: "r1", Text: "hello"}}})
			if !errors.Is(err, ErrNotReplicated) {
				t.Errorf("Commit without the replica = %v, want ErrNotReplicated", err)
			}
			plain := New(c, "", suiteOpts)
			if err := plain.Append(t.Context(), text(k, "m3", "min_replicas 0")); err != nil {
				t.Errorf("Append with min_replicas 0: %v", err)
			}
		})
	}
}

// TestMinReplicasConfirmsADuplicateBeforeAcknowledgingIt: input stored on
// the primary but refused for want of a replica comes back (the platform
// retries, maybe through another replica of the gateway, on a connection
// that never wrote). The retry finds the input's dedupe record; it is
// acknowledged only once the replica has that input, or a failover could
// lose a message the platform will never send again.
func TestMinReplicasConfirmsADuplicateBeforeAcknowledgingIt(t *testing.T) {
	primary, replica := primaryWithReplica(t)
	first := replicatedStore(t, primary.client())
	first.opts.ReplicaTimeout = 300 * time.Millisecond
	k := chat("retried")
	in := text(k, "m1", "stored once, confirmed late")
	if err := replica.cmd.Process.Signal(syscall.SIGSTOP); err != nil { // the replica stops acknowledging
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = replica.cmd.Process.Signal(syscall.SIGCONT) })
	if err := first.Append(t.Context(), in); !errors.Is(err, ErrNotReplicated) {
		t.Fatalf("Append while the replica is stopped = %v, want ErrNotReplicated", err)
	}
	retry := replicatedStore(t, primary.client()) // a fresh connection: it wrote nothing yet
	retry.opts.ReplicaTimeout = 300 * time.Millisecond
	if err := retry.Append(t.Context(), in); !errors.Is(err, ErrNotReplicated) {
		t.Fatalf("retried Append while the replica is stopped = %v, want ErrNotReplicated (a 200 would acknowledge input only the primary has)", err)
	}
	if err := replica.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	retry.opts.ReplicaTimeout = MaxReplicaTimeout
	if err := retry.Append(t.Context(), in); !errors.Is(err, botgw.ErrDuplicate) {
		t.Fatalf("retried Append once the replica is back = %v, want ErrDuplicate", err)
	}
	snap, err := retry.Begin(t.Context(), k, "")
	if err != nil || len(snap.Pending) != 1 {
		t.Fatalf("pending after the retries: %d entries, err %v; want the input once", len(snap.Pending), err)
	}
}
