package gateway

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/web"
	"github.com/botgw/botgw/compaction"
	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/convo/broadcast"
	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/providers/limit"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/webhooks"
	"github.com/botgw/botgw/webhooks/guard"
	"github.com/botgw/botgw/webhooks/metrics"
)

// shutdownGrace bounds how long SIGTERM waits for in-flight turns.
const shutdownGrace = 25 * time.Second

// gateway is everything Serve wires together.
type gateway struct {
	store    *state.Store
	engine   *convo.Engine
	bcast    *broadcast.Runner
	server   *webhooks.Server
	channels builtChannels
	stream   *streamParts
}

// Serve runs the gateway until ctx ends, then shuts down in order: stop
// intake (HTTP, listeners), finish or hand back turns, close Redis.
func Serve(ctx context.Context, cfg Config, log *slog.Logger, onListen func(net.Addr)) error {
	tracer, stopTracing, err := startTracing(ctx, log)
	if err != nil {
		return err
	}
	defer stopTracing()
	if why := WebOff(cfg); why != "" {
		log.Warn(why)
		cfg.Channels.Web = nil
	}
	gw, err := build(ctx, cfg, tracer, log)
	if err != nil {
		return err
	}
	defer gw.store.Close()
	defer gw.channels.close(log) // last, after every listener and turn ended
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return gw.engine.Run(gctx) })
	g.Go(func() error { return gw.bcast.Run(gctx) })
	g.Go(func() error { gw.store.RunRepair(gctx); return nil })
	gw.stream.run(gctx, gw.store, cfg.Stream.SeqTTL, log)
	g.Go(func() error { return gw.server.Serve(gctx, cfg.Listen, 5*time.Second, gw.listening(onListen)) })
	ls := startListeners(ctx, gw.channels.all, gw.engine.Handle, fail, log)
	for _, ch := range gw.channels.all {
		if s, ok := ch.(botgw.Starter); ok {
			go start(gctx, s, ch.Name(), log)
		}
	}
	err = g.Wait()
	gw.stream.stop() // the relays end with gctx
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if cerr := gw.engine.Close(closeCtx); cerr != nil {
		log.Warn("shutdown", "err", cerr)
	}
	if lerr := ls.stop(); err == nil {
		err = lerr
	}
	log.Info("botgw stopped")
	return err
}

// listeners are the pulling channels (WhatsApp, Slack socket mode). They
// run on a context of their own that outlives the gateway's: stop ends it
// after the engine has drained, so the replies of turns in flight at
// SIGTERM still go out (WhatsApp sends on its listener's connection).
type listeners struct {
	cancel context.CancelFunc
	g      errgroup.Group
}

// startListeners runs every Listener in chans; one failing calls fail,
// which stops the gateway.
func startListeners(ctx context.Context, chans []botgw.Channel, deliver botgw.Deliver, fail context.CancelCauseFunc, log *slog.Logger) *listeners {
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ls := &listeners{cancel: cancel}
	for _, ch := range chans {
		if l, ok := ch.(botgw.Listener); ok {
			ls.g.Go(func() error {
				err := listen(lctx, l, ch.Name(), deliver, log)
				if err != nil {
					fail(err)
				}
				return err
			})
		}
	}
	return ls
}

// stop ends the listeners and waits for them.
func (ls *listeners) stop() error {
	ls.cancel()
	return ls.g.Wait()
}

// listen runs a pulling channel; it ends only with ctx.
func listen(ctx context.Context, l botgw.Listener, name string, deliver botgw.Deliver, log *slog.Logger) error {
	err := l.Listen(ctx, deliver)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("channel %s: %w", name, err)
	}
	return nil
}

func start(ctx context.Context, s botgw.Starter, name string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		log.Error("channel start-up", "channel", name, "err", err)
	}
}

// build constructs the store, provider, compactor, channels, engine and
// HTTP server. It is the only place that knows every concrete type.
func build(ctx context.Context, cfg Config, tracer trace.Tracer, log *slog.Logger) (*gateway, error) {
	st, err := state.Open(ctx, cfg.Redis, cfg.StoreOptions(), log)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	gw := &gateway{store: st}
	if err := gw.wire(ctx, cfg, tracer, log); err != nil {
		gw.channels.close(log)
		st.Close()
		return nil, err
	}
	return gw, nil
}

func (gw *gateway) wire(ctx context.Context, cfg Config, tracer trace.Tracer, log *slog.Logger) error {
	met := gw.metrics()
	prov, ids, err := buildProvider(cfg.Provider, shaping{rdb: gw.store.Client(), prefix: cmp.Or(cfg.Redis.KeyPrefix, state.DefaultKeyPrefix),
		obs: met.ProviderAttempts, log: log,
		watch: watchProviders(met)})
	if err != nil {
		return err
	}
	counter := compaction.NewCounter(cfg.Provider.resolved().Model)
	comp, err := compaction.New(cfg.Compaction, prov, counter)
	if err != nil {
		return fmt.Errorf("compaction: %w", err)
	}
	if gw.channels, err = buildChannels(ctx, cfg, gw.store, log); err != nil {
		return err
	}
	tools, err := buildTools(cfg.Tools, log)
	if err != nil {
		return err
	}
	gw.watchChannels(met)
	reader, err := buildMedia(cfg, gw.channels.byName(), met.MediaObserver(), log)
	if err != nil {
		return err
	}
	trail := audit.NewLog(gw.store.AuditStream())
	gw.bcast = &broadcast.Runner{Store: gw.store.Broadcasts(), Hooks: broadcastMetrics(met), Log: log}
	gw.engine, err = convo.New(engineConfig(cfg, ids), convo.Deps{Store: gw.store, Provider: prov, Compactor: comp, Channels: gw.channels.byName(),
		Count: func(h []botgw.Message) int { return compaction.CountMessages(counter, h) },
		Media: reader, Tools: tools, Audit: trail, Hooks: met.Hooks(), Tracer: tracer, Log: log, Outgoing: gw.bcast})
	if err != nil {
		return err
	}
	gw.bcast.Deliver = gw.engine.Handle
	op := &operator.API{Store: gw.store, Trail: trail, StateTTL: cfg.State.TTL, Log: log,
		Deliver: gw.engine.Handle, TakeoverTTL: cfg.Admin.TakeoverTTL}
	return gw.serveHTTP(cfg, op, met, log)
}

// serveHTTP builds the HTTP server and the conversation stream. Input
// arriving over HTTP (or Kafka) waits on Redis at most guard.IngressWait,
// then is answered 503 so the sender retries.
func (gw *gateway) serveHTTP(cfg Config, op *operator.API, met *metrics.Metrics, log *slog.Logger) error {
	ingress := guard.Within(guard.IngressWait, gw.engine.Handle)
	events := webhooks.NewEvents(cfg.Events.Secret, ingress, gw.store, cfg.Channels.Names(), log)
	var err error
	if gw.stream, err = buildStream(cfg, gw.store, events, ingress, log); err != nil {
		return err
	}
	met.Registry().MustRegister(gw.stream.collectors()...)
	proxies, err := guard.ParseProxies(cfg.TrustedProxies)
	if err != nil {
		return err
	}
	gw.server = webhooks.New(webhooks.Deps{
		Deliver: ingress, Channels: gw.channels.all, Checks: gw.checks(),
		Events:     events,
		Admin:      webhooks.NewAdmin(cfg.Admin.Token, op, log).WithChannels(gw.channels.all).WithStream(gw.stream.status),
		Broadcasts: gw.bcast,
		Metrics:    met.Handler(), Observe: met.ObserveHTTP,
		Bodies: guard.NewBudget(0, 0).PerClient(0, proxies), BodyRefused: met.BodiesRefused(),
		Log: log,
	})
	if w := gw.channels.web; w != nil {
		w.LimitClients(newWebClients(gw.store.Client(), cmp.Or(cfg.Redis.KeyPrefix, state.DefaultKeyPrefix)), proxies)
		gw.server.Handle(http.MethodGet, "/", webhooks.Page(web.Page()))
		gw.server.Handle(http.MethodGet, "/chat.js", webhooks.Page(web.Page()))
		chat := w.ChatHandler(ingress)
		for _, route := range []struct{ method, path string }{{http.MethodPost, "/v1/chat"}, {http.MethodGet, "/v1/chat"},
			{http.MethodOptions, "/v1/chat"}, {http.MethodPost, "/v1/chat/poll"}, {http.MethodOptions, "/v1/chat/poll"}} {
			gw.server.Handle(route.method, route.path, chat)
		}
	}
	return nil
}

// watchProviders exports each limited provider's calls in flight and
// waiting, once per provider id (a fallback may share its primary's id).
func watchProviders(met *metrics.Metrics) func(*limit.Provider) {
	seen := map[string]bool{}
	return func(p *limit.Provider) {
		if !seen[p.ID()] {
			seen[p.ID()] = true
			met.WatchProvider(p.ID(), p.InFlight, p.Waiting)
		}
	}
}

// metrics builds the Prometheus metrics and counts Redis errors.
func (gw *gateway) metrics() *metrics.Metrics {
	m := metrics.New()
	gw.store.Client().AddHook(m.RedisHook())
	m.WatchBacklog(func(ctx context.Context) (int, time.Duration, error) {
		b, err := gw.store.Backlog(ctx)
		return b.Due, b.Overdue, err
	})
	m.WatchDeadLetters(gw.store.DeadLetterCounts)
	return m
}

// watchChannels exports the health of every channel that reports it and
// counts the input each one reads but ignores.
func (gw *gateway) watchChannels(m *metrics.Metrics) {
	for _, ch := range gw.channels.all {
		if h, ok := ch.(botgw.Health); ok {
			m.WatchChannel(ch.Name(), h)
		}
		if c, ok := ch.(botgw.IgnoreCounter); ok {
			c.CountIgnored(m.Ignored(ch.Name()))
		}
		if c, ok := ch.(eventCounter); ok {
			m.WatchEvents(ch.Name(), c.EventCounts)
		}
	}
}

// eventCounter is a channel that counts events of its own (WhatsApp:
// undecryptable messages, forced reconnects…), exported as metrics.
type eventCounter interface{ EventCounts() map[string]uint64 }

// checks are the readiness probes: Redis taking writes (a Redis that
// answers but refuses them, out of memory, cannot store input), and every
// channel that reports its health.
func (gw *gateway) checks() map[string]webhooks.Check {
	c := map[string]webhooks.Check{"redis": gw.store.Writable}
	for _, ch := range gw.channels.all {
		if h, ok := ch.(botgw.Health); ok {
			c[ch.Name()] = func(context.Context) error { return h.Health() }
		}
	}
	return c
}
