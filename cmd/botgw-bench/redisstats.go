package main

import (
	"bufio"
	"context"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// roundTrips counts the client's trips to Redis: one per command, one per
// pipeline or transaction.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}

func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}

var _ redis.Hook = (*roundTrips)(nil)

// commandCalls sums calls= over INFO commandstats: the commands Redis ran,
// scripts' inner calls included. ok is false where INFO has no such section
// (the embedded Redis).
func commandCalls(ctx context.Context, rc redis.UniversalClient) (calls int64, ok bool) {
	info, err := rc.Info(ctx, "commandstats").Result()
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		_, rest, found := strings.Cut(sc.Text(), "calls=")
		if !found {
			continue
		}
		n, _ := strconv.ParseInt(strings.SplitN(rest, ",", 2)[0], 10, 64)
		calls, ok = calls+n, true
	}
	return calls, ok
}

// redisCPU is the CPU time Redis has used (INFO cpu: used_cpu_sys +
// used_cpu_user); ok is false where INFO has no such section (the embedded
// Redis).
func redisCPU(ctx context.Context, rc redis.UniversalClient) (cpu time.Duration, ok bool) {
	info, err := rc.Info(ctx, "cpu").Result()
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		k, v, _ := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		if k == "used_cpu_sys" || k == "used_cpu_user" {
			secs, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, false
			}
			cpu, ok = cpu+time.Duration(secs*float64(time.Second)), true
		}
	}
	return cpu, ok
}

// peakRSS is the process's high-water resident set (VmHWM), in bytes; 0
// where /proc is missing.
func peakRSS() int64 { return procStatusBytes("VmHWM:") }

// settledRSS is the process's resident set (VmRSS) after a full garbage
// collection that returns freed memory to the OS: what the process holds,
// not what it once needed.
func settledRSS() int64 {
	debug.FreeOSMemory()
	return procStatusBytes("VmRSS:")
}

// procStatusBytes reads a "<field> <n> kB" line of /proc/self/status.
func procStatusBytes(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// loopback reports whether the Redis URL points at this machine.
func loopback(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	ip := net.ParseIP(h)
	return h == "localhost" || (ip != nil && ip.IsLoopback())
}
