package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state"
)

// bench runs the gateway phase, then the ceiling phase, on one store.
func bench(ctx context.Context, o options) (result, error) {
	st, prefix, err := openStore(ctx, o.redis)
	if err != nil {
		return result{}, err
	}
	defer st.Close()
	defer cleanup(st.Client(), prefix)
	trips := &roundTrips{}
	st.Client().AddHook(trips)
	res := result{Machine: machine(), Options: o.summary(), Redis: redisKind(o.redis)}
	if res.Gateway, err = gatewayPhase(ctx, st, o, trips); err != nil {
		return res, err
	}
	if res.StateBytes, err = stateBytes(ctx, st, o.chats); err != nil {
		return res, err
	}
	if res.Ceiling, err = ceilingPhase(ctx, st.Client(), prefix, o); err != nil {
		return res, err
	}
	res.Ratio = res.Gateway.PerSecond / res.Ceiling.PerSecond
	res.PeakRSSBytes = peakRSS()
	return res, nil
}

func openStore(ctx context.Context, url string) (*state.Store, string, error) {
	cfg := state.Config{URL: url, KeyPrefix: "botgw-bench-" + rand.Text()[:8]}
	if url == "embedded" {
		cfg.URL = ""
	} else if opts, err := redis.ParseURL(url); err != nil {
		return nil, "", fmt.Errorf("redis url: %w", err)
	} else if !loopback(opts.Addr) {
		return nil, "", fmt.Errorf("redis url: %s is not on loopback; the bench runs on this machine only", opts.Addr)
	}
	st, err := state.Open(ctx, cfg, cfg.Options(), slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, "", fmt.Errorf("open store: %w", err)
	}
	return st, cfg.KeyPrefix, nil
}

// gatewayPhase drives the real webhook path and counts Redis work per turn.
func gatewayPhase(ctx context.Context, st *state.Store, o options, trips *roundTrips) (phase, error) {
	api := newBotAPI()
	apiURL, stopAPI, err := serveLoopback(api)
	if err != nil {
		return phase{}, err
	}
	defer stopAPI()
	stopSTT, err := startTranscription(&o)
	if err != nil {
		return phase{}, err
	}
	defer stopSTT()
	gw, err := startGateway(ctx, st, apiURL, o)
	if err != nil {
		return phase{}, err
	}
	calls0, hasCalls := commandCalls(ctx, st.Client())
	redis0, hasRedisCPU := redisCPU(ctx, st.Client())
	trips0 := trips.n.Load()
	cpu0 := processCPU()
	stopProfile, err := startProfile(o.cpuProfile)
	if err != nil {
		return phase{}, err
	}
	s, wall, err := drive(ctx, gw.base+"/webhooks/telegram", o, api)
	stopProfile()
	cpu := processCPU() - cpu0
	redis1, hasRedisCPU1 := redisCPU(ctx, st.Client())
	idle := settledRSS() // every chat has been answered; the gateway still runs
	gw.stop()            // waits for the last leases to be given back
	if err != nil {
		return phase{}, fmt.Errorf("gateway phase: %w", err)
	}
	p := summarize(s, wall, o.providerLatency)
	p.SettledRSSBytes = idle
	turns := float64(len(s.e2e))
	p.RoundTripsPerTurn = float64(trips.n.Load()-trips0) / turns
	p.CPUPerTurn = toMS(time.Duration(float64(cpu) / turns))
	if hasRedisCPU && hasRedisCPU1 {
		p.RedisCPUPerTurn = toMS(time.Duration(float64(redis1-redis0) / turns))
	}
	if calls1, ok := commandCalls(ctx, st.Client()); ok && hasCalls {
		p.CommandsPerTurn = float64(calls1-calls0-2) / turns // minus the two INFOs
	}
	return p, nil
}

// ceilingPhase drives the minimal handler with the same chats and messages.
func ceilingPhase(ctx context.Context, rc redis.UniversalClient, prefix string, o options) (phase, error) {
	base, stop, err := serveLoopback(ceilingHandler(rc, prefix))
	if err != nil {
		return phase{}, err
	}
	defer stop()
	s, wall, err := drive(ctx, base+"/webhooks/telegram", o, nil)
	if err != nil {
		return phase{}, fmt.Errorf("ceiling phase: %w", err)
	}
	p := summarize(s, wall, 0)
	p.RoundTripsPerTurn = 2
	return p, nil
}

// stateBytes is the mean and largest stored state of the bench chats.
func stateBytes(ctx context.Context, st *state.Store, chats int) (sizes, error) {
	var z sizes
	for c := range chats {
		k := botgw.ChatKey{Channel: "telegram", ID: strconv.FormatInt(chatID(c), 10)}
		info, err := st.Info(ctx, k)
		if err != nil {
			return z, fmt.Errorf("read state of %s: %w", k, err)
		}
		z.Mean += float64(len(info.Blob)) / float64(chats)
		z.Max = max(z.Max, len(info.Blob))
	}
	return z, nil
}

// cleanup deletes the run's keys (SCAN, never KEYS).
func cleanup(rc redis.UniversalClient, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	iter := rc.Scan(ctx, 0, prefix+":*", 500).Iterator()
	for iter.Next(ctx) {
		rc.Del(ctx, iter.Val())
	}
}

func machine() string {
	host, _ := hostname()
	return fmt.Sprintf("%s, %d CPU, %s/%s, %s", host, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func redisKind(url string) string {
	if url == "embedded" {
		return "embedded (miniredis, in-process)"
	}
	return url
}

// startProfile starts a CPU profile into path; "" profiles nothing.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
