package state

import (
	"context"
	"testing"
	"time"

	"github.com/botgw/botgw/state/redistest"
	"github.com/redis/go-redis/v9"
)

// TestStoreRedisCluster runs the suite on a Redis Cluster, which refuses
// scripts whose keys span slots and splits pipelines across nodes. Set
// BOTGW_TEST_REDIS_CLUSTER_URL to a cluster seed URL
// (redis://host:7000?addr=host:7001); a one-node cluster will do:
//
//	redis-server --port 7000 --cluster-enabled yes --save '' --daemonize yes
//	redis-cli -p 7000 cluster addslotsrange 0 16383
func TestStoreRedisCluster(t *testing.T) {
	redistest.ClusterURL(t)
	runSuite(t, clusterHarness)
}

func clusterHarness(t testing.TB, opts Options) *harness {
	o, err := redis.ParseClusterURL(redistest.ClusterURL(t))
	if err != nil {
		t.Fatalf("BOTGW_TEST_REDIS_CLUSTER_URL: %v", err)
	}
	cc := redis.NewClusterClient(o)
	prefix := "botgwtest-" + newToken()[:12]
	s := New(cc, prefix, opts)
	s.log = testLogger(t)
	t.Cleanup(func() {
		cc.ForEachMaster(context.Background(), func(_ context.Context, c *redis.Client) error {
			deleteKeys(t, c, prefix+":*")
			return nil
		})
		s.Close()
	})
	return &harness{s: s, advance: time.Sleep}
}
