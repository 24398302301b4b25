package state

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

// keySlot returns the Redis Cluster slot of a key as a real cluster node
// computes it (CLUSTER KEYSLOT): the one at BOTGW_TEST_REDIS_CLUSTER_URL,
// else a cluster-enabled redis-server started on a unix socket for the test.
// It skips when neither is available.
func keySlot(t *testing.T) func(key string) int64 {
	t.Helper()
	var c redis.UniversalClient
	if u := os.Getenv("BOTGW_TEST_REDIS_CLUSTER_URL"); u != "" {
		o, err := redis.ParseClusterURL(u)
		if err != nil {
			t.Fatalf("BOTGW_TEST_REDIS_CLUSTER_URL: %v", err)
		}
		c = redis.NewClusterClient(o)
	} else {
		c = clusterNode(t)
	}
	t.Cleanup(func() { c.Close() })
	return func(key string) int64 {
		n, err := c.ClusterKeySlot(context.Background(), key).Result()
		if err != nil {
			t.Fatalf("CLUSTER KEYSLOT %s: %v", key, err)
		}
		return n
	}
}

// clusterNode starts a cluster-enabled redis-server on a unix socket.
func clusterNode(t *testing.T) *redis.Client {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("no redis-server and no BOTGW_TEST_REDIS_CLUSTER_URL: skipping the slot test")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command(bin, "--port", "0", "--unixsocket", sock, "--cluster-enabled", "yes",
		"--cluster-config-file", filepath.Join(dir, "nodes.conf"), "--dir", dir, "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: sock})
	for deadline := time.Now().Add(10 * time.Second); c.Ping(context.Background()).Err() != nil; {
		if time.Now().After(deadline) {
			t.Fatal("the cluster node did not start within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return c
}

// Every key of one chat is in one slot, so the commit script and the
// pipelines work on Redis Cluster.
func TestChatKeysShareSlot(t *testing.T) {
	slot := keySlot(t)
	s := New(nil, "botgw", Options{})
	for _, raw := range []string{"telegram:-1001234567890/42", "slack:C0123ABC/1700000000.000100", "whatsapp:447700900123@s.whatsapp.net", "web:x"} {
		k, err := botgw.ParseChatKey(raw)
		if err != nil {
			t.Fatal(err)
		}
		ks, err := s.keys(k)
		if err != nil {
			t.Fatal(err)
		}
		want := slot(ks.state)
		for _, key := range []string{ks.pending, ks.outbox, ks.lease, ks.ids + "m1"} {
			if got := slot(key); got != want {
				t.Errorf("%s: slot %d, want %d (the slot of %s)", key, got, want, ks.state)
			}
		}
	}
	a, _ := s.keys(botgw.ChatKey{Channel: "web", ID: "a"})
	b, _ := s.keys(botgw.ChatKey{Channel: "web", ID: "b"})
	if slot(a.state) == slot(b.state) && slot(a.pending) == slot(b.pending) {
		t.Error("two chats share a slot: the hash tag does not hold the chat")
	}
}

// The work shards are spread over the cluster, one slot each.
func TestWorkShardsSpreadOverSlots(t *testing.T) {
	slot := keySlot(t)
	s := New(nil, "botgw", Options{})
	slots := map[int64]bool{}
	for i := range uint32(workShards) {
		slots[slot(s.workKey(i))] = true
	}
	if len(slots) != workShards {
		t.Errorf("%d work shards use %d slots, want one each", workShards, len(slots))
	}
}
