// Package redistest finds the real Redis (BOTGW_TEST_REDIS_URL) and
// Redis Cluster (BOTGW_TEST_REDIS_CLUSTER_URL) that tests run against,
// skipping the test without them, and cleans up after them.
package redistest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// URL is BOTGW_TEST_REDIS_URL; without it the test is skipped, saying so.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("BOTGW_TEST_REDIS_URL")
	if u == "" {
		t.Skip("BOTGW_TEST_REDIS_URL not set: skipping real-Redis test")
	}
	return u
}

// ClusterURL is BOTGW_TEST_REDIS_CLUSTER_URL (a Redis Cluster,
// redis://host:7000?addr=host:7001); without it the test is skipped,
// saying so.
func ClusterURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("BOTGW_TEST_REDIS_CLUSTER_URL")
	if u == "" {
		t.Skip("BOTGW_TEST_REDIS_CLUSTER_URL not set: skipping Redis Cluster test")
	}
	return u
}

// Prefix is a fresh key prefix on the Redis at url whose keys are deleted
// when the test ends.
func Prefix(t testing.TB, url string) string {
	t.Helper()
	prefix := fmt.Sprintf("botgwtest-%x", time.Now().UnixNano())
	t.Cleanup(func() { Drop(t, url, prefix) })
	return prefix
}

// Drop deletes every key under prefix (SCAN, never KEYS).
func Drop(t testing.TB, url, prefix string) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Logf("clean up %s: %v", prefix, err)
		return
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx := context.Background()
	iter := c.Scan(ctx, 0, prefix+":*", 1000).Iterator()
	for iter.Next(ctx) {
		c.Del(ctx, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Logf("clean up %s: %v", prefix, err)
	}
}

// CommandCount is the server's total of calls in INFO commandstats
// (commands inside scripts counted, INFO itself left out), or -1 where
// that is not available (miniredis).
func CommandCount(t testing.TB, c redis.UniversalClient) int64 {
	info, err := c.Info(t.Context(), "commandstats").Result()
	if err != nil || !strings.Contains(info, "cmdstat_") {
		return -1
	}
	var total int64
	for line := range strings.SplitSeq(info, "\n") {
		if !strings.HasPrefix(line, "cmdstat_") || strings.HasPrefix(line, "cmdstat_info:") {
			continue
		}
		if _, rest, ok := strings.Cut(line, "calls="); ok {
			n, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
			total += n
		}
	}
	return total
}
