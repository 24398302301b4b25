// Package webhooks is the gateway's one HTTP server (echo v4): platform
// webhook routes, the app-event and admin APIs, the web chat, health and
// metrics. Handlers only authenticate, validate and make input durable; turns
// run in the engine, never on a request's context.
package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/webhooks/guard"
)

// Check is one readiness probe (Redis reachable, a channel usable).
type Check func(ctx context.Context) error

// Deps are what the server routes to.
type Deps struct {
	Deliver  botgw.Deliver
	Channels []botgw.Channel // WebhookReceivers are mounted at /webhooks/<name>
	Checks   map[string]Check
	Metrics  http.Handler // nil: /metrics is 404
	// Observe, when set, is told of every answered request: the route
	// pattern (never the raw path), the status and the time taken.
	Observe func(route string, status int, d time.Duration)
	Events  *Events // nil: /v1/events is 404
	// Broadcasts serves /v1/broadcasts (with Events' auth); nil: 404.
	Broadcasts Broadcasts
	Admin      *Admin // nil: /v1/admin is 404
	// Bodies bounds the request bodies all routes hold at once, per
	// client and in all; nil: guard.NewBudget's defaults.
	Bodies *guard.Budget
	// BodyRefused, when set, is told of every body refused for the
	// budget or cut off at its deadline: the route pattern and why
	// (guard.RefusedBusy, RefusedClient, RefusedTimeout).
	BodyRefused func(route, reason string)
	Log         *slog.Logger
}

// Server is the HTTP front of the gateway.
type Server struct {
	e    *echo.Echo
	deps Deps
	log  *slog.Logger
}

// New builds the server and its routes. It does no I/O.
func New(deps Deps) *Server {
	if deps.Log == nil {
		deps.Log = slog.New(slog.DiscardHandler)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Use(middleware.Recover())
	if deps.Observe != nil {
		e.Use(observe(deps.Observe))
	}
	if deps.Bodies == nil {
		deps.Bodies = guard.NewBudget(0, 0)
	}
	e.Pre(escapedPath)
	e.Use(nosniff, bodies(deps.Bodies, deps.BodyRefused))
	e.HTTPErrorHandler = jsonErrors(deps.Log)
	s := &Server{e: e, deps: deps, log: deps.Log}
	s.routes()
	return s
}

func (s *Server) routes() {
	s.e.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	})
	s.e.GET("/readyz", s.ready)
	if s.deps.Metrics != nil {
		s.e.GET("/metrics", echo.WrapHandler(s.deps.Metrics))
	}
	for _, ch := range s.deps.Channels {
		if r, ok := ch.(botgw.WebhookReceiver); ok {
			h := echo.WrapHandler(r.WebhookHandler(s.deps.Deliver))
			s.e.Any("/webhooks/"+ch.Name(), h)
			s.e.Any("/webhooks/"+ch.Name()+"/*", h)
		}
	}
	if s.deps.Events != nil {
		s.deps.Events.mount(s.e)
		if s.deps.Broadcasts != nil {
			s.deps.Events.mountBroadcasts(s.e, s.deps.Broadcasts)
		}
	}
	if s.deps.Admin != nil {
		s.deps.Admin.mount(s.e)
	}
}

// Handle mounts an extra handler (the web chat page and API).
func (s *Server) Handle(method, path string, h http.Handler) {
	s.e.Add(method, path, echo.WrapHandler(h))
}

// Routes lists every registered route: its method and path pattern.
func (s *Server) Routes() []*echo.Route { return s.e.Routes() }

// Handler is the whole server as an http.Handler (tests, benchmarks).
func (s *Server) Handler() http.Handler { return s.e }

// ready answers 200 when every check passes, else 503 naming the failures.
func (s *Server) ready(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	status, res := http.StatusOK, map[string]string{}
	for name, check := range s.deps.Checks {
		if err := check(ctx); err != nil {
			status, res[name] = http.StatusServiceUnavailable, err.Error()
			continue
		}
		res[name] = "ok"
	}
	return c.JSON(status, res)
}

// Serve listens on addr until ctx ends, then shuts down gracefully within
// grace. It calls onListen with the bound address (":0" picks a port).
func (s *Server) Serve(ctx context.Context, addr string, grace time.Duration, onListen func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s.e, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 3 * time.Minute, IdleTimeout: 2 * time.Minute}
	if onListen != nil {
		onListen(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", addr, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shut down http server: %w", err)
	}
	return nil
}

// jsonErrors answers every error as {"error": "..."}.
func jsonErrors(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		status, msg := http.StatusInternalServerError, "internal error"
		var he *echo.HTTPError
		if errors.As(err, &he) {
			status, msg = he.Code, fmt.Sprint(he.Message)
		} else {
			log.Error("http handler", "path", c.Path(), "err", err)
		}
		_ = c.JSON(status, map[string]string{"error": msg})
	}
}

// nosniff stops browsers from reading any answer as another type than the
// one it declares (a JSON error rendered as HTML).
func nosniff(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("X-Content-Type-Options", "nosniff")
		return next(c)
	}
}

// observe reports each request's route, status and duration once the
// handler and the error handler have answered.
func observe(fn func(route string, status int, d time.Duration)) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err) // answer now, so the status is the one sent
			}
			fn(c.Path(), c.Response().Status, time.Since(start))
			return nil
		}
	}
}
