package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/telegram"
	"github.com/botgw/botgw/compaction"
	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/providers/limit"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/state/ratelimit"
	"github.com/botgw/botgw/webhooks"
)

// gateway is the real ingress, engine and Telegram adapter over the store,
// with the fake provider: the path a Telegram update takes in production.
type gateway struct {
	engine *convo.Engine
	base   string // http://127.0.0.1:port
	stop   func()
}

// startGateway wires the gateway as cmd/botgw does and serves it on a
// loopback port until stop is called.
func startGateway(ctx context.Context, st *state.Store, apiURL string, o options) (*gateway, error) {
	model := fake.New()
	model.SetDelay(o.providerLatency)
	prov, err := limit.New(model, limit.Config{}, nil, nil) // as cmd/botgw: 1024 calls in flight, first come first served
	if err != nil {
		return nil, err
	}
	counter := compaction.NewCounter(o.model)
	comp, err := compaction.New(compaction.Config{}, prov, counter)
	if err != nil {
		return nil, fmt.Errorf("compaction: %w", err)
	}
	log := slog.New(slog.DiscardHandler)
	tg, err := telegram.New(telegram.Config{Token: benchToken, WebhookSecret: benchSecret, APIURL: apiURL,
		RatePerSecond: 1000, Burst: 1000, BotRatePerSecond: 1e6}, "", ratelimit.New(st.Client(), ratelimit.Sends(st.KeyPrefix()), log), log)
	if err != nil {
		return nil, err
	}
	deps := convo.Deps{Store: st, Provider: prov, Compactor: comp, Channels: map[string]botgw.Channel{tg.Name(): tg},
		Count: func(h []botgw.Message) int { return compaction.CountMessages(counter, h) }, Log: log}
	if o.media {
		if deps.Media, err = mediaReader(tg, o.sttURL, o.mediaConcurrency); err != nil {
			return nil, err
		}
	}
	eng, err := convo.New(convo.Config{SystemPrompt: "You are the assistant of a location game."}, deps)
	if err != nil {
		return nil, err
	}
	srv := webhooks.New(webhooks.Deps{Deliver: eng.Handle, Channels: []botgw.Channel{tg}, Log: log})
	return serveGateway(ctx, eng, srv.Handler())
}

func serveGateway(ctx context.Context, eng *convo.Engine, h http.Handler) (*gateway, error) {
	base, stopHTTP, err := serveLoopback(h)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = eng.Run(ctx); close(done) }()
	stop := func() {
		stopHTTP()
		cancel()
		<-done
		closeCtx, c := context.WithTimeout(context.Background(), 10*time.Second)
		defer c()
		_ = eng.Close(closeCtx)
	}
	return &gateway{engine: eng, base: base, stop: stop}, nil
}

// serveLoopback serves h on a free loopback port.
func serveLoopback(h http.Handler) (base string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen on loopback: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}
