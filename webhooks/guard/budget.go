package guard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// Bodies in flight: every route's body counts against one budget shared by
// all requests of the process, so strangers sending large bodies cannot
// make the gateway hold more than this, however many they send at once;
// and against its client's allowance, so one client (one address) cannot
// take the room every other client needs. A body is charged for what the
// gateway has received of it, never for what it merely declares.
const (
	// DefaultBodyBudget is the bytes of request bodies all requests in
	// flight may hold together.
	DefaultBodyBudget = 32 << 20
	// DefaultClientBodies is the bytes of request bodies one client's
	// requests in flight may hold together: the largest body a route
	// takes (16 MiB), with room for the byte that tells a larger one.
	DefaultClientBodies = 16<<20 + chunk
	// DefaultBodyWait is how long a read waits for room in the budget
	// before the request is answered 503.
	DefaultBodyWait = time.Second
	// BodyDeadline is how long a request may take to send its whole body,
	// counted from the end of its headers.
	BodyDeadline = 10 * time.Second
	// chunk is the most one Read takes at a time: a request is charged for
	// what it read, and goes over its share by at most this while it waits.
	chunk = 32 << 10
)

// Why a body was refused, as Budget.Track's observer is told.
const (
	RefusedBusy    = "busy"    // the budget of all bodies in flight stayed full: 503
	RefusedClient  = "client"  // the client's own allowance is spent: 429
	RefusedTimeout = "timeout" // the body did not arrive within BodyDeadline: 408
)

var (
	// ErrBusy is a body read refused because the budget of bodies in
	// flight stayed full: answer 503 with Retry-After, the client retries.
	ErrBusy = errors.New("request bodies in flight are at the gateway's limit")
	// ErrClientBusy is a body read refused because the client's own
	// bodies in flight hold its whole allowance: answer 429.
	ErrClientBusy = errors.New("this client's request bodies in flight are at its limit")
	// ErrSlowBody is a body that did not arrive within BodyDeadline.
	ErrSlowBody = errors.New("body: not received within 10 s")
)

// Budget bounds the bytes of request bodies that the requests in flight
// hold, in all and per client: a request is charged as it reads and
// credited when its handler returns. It is safe for concurrent use.
type Budget struct {
	sem       *semaphore.Weighted
	total     int64
	perClient int64
	wait      time.Duration
	deadline  time.Duration
	proxies   Proxies

	mu      sync.Mutex
	clients map[string]int64 // bytes held per client (Proxies.Client)
}

// NewBudget builds a budget of total bytes whose clients may each hold
// DefaultClientBodies; a read waits at most wait for room. Zero values
// take the defaults.
func NewBudget(total int64, wait time.Duration) *Budget {
	if total <= 0 {
		total = DefaultBodyBudget
	}
	if wait <= 0 {
		wait = DefaultBodyWait
	}
	return &Budget{sem: semaphore.NewWeighted(total), total: total, perClient: DefaultClientBodies,
		wait: wait, deadline: BodyDeadline, clients: map[string]int64{}}
}

// PerClient sets each client's allowance (0: DefaultClientBodies) and the
// trusted proxies that say who the client is (docs/security.md).
func (b *Budget) PerClient(allowance int64, proxies Proxies) *Budget {
	if allowance <= 0 {
		allowance = DefaultClientBodies
	}
	b.perClient, b.proxies = allowance, proxies
	return b
}

// Middleware is Track around next, telling nobody of refusals.
func (b *Budget) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer b.Track(w, r, nil)()
		next.ServeHTTP(w, r)
	})
}

// Track charges r's body to the budget and to its client's allowance,
// gives the whole body BodyDeadline to arrive, and tells refused (when not
// nil) why a read was refused. Call the release it returns when the
// handler returns: it credits what the body held.
func (b *Budget) Track(w http.ResponseWriter, r *http.Request, refused func(reason string)) (release func()) {
	if r.Body == nil || r.Body == http.NoBody {
		return func() {}
	}
	cb := &chargedBody{ReadCloser: r.Body, b: b, ctx: r.Context(), client: b.proxies.Client(r),
		refused: refused, rc: http.NewResponseController(w)}
	_ = cb.rc.SetReadDeadline(time.Now().Add(b.deadline)) // not every writer can: tests' recorders
	r.Body = cb
	return cb.release
}

// chargedBody is a request body whose reads are charged to a Budget.
type chargedBody struct {
	io.ReadCloser
	b       *Budget
	ctx     context.Context
	client  string
	refused func(reason string)
	rc      *http.ResponseController
	held    int64 // charged, credited when the handler returns
	prepaid int64 // charged by reserve and not read yet
}

func (c *chargedBody) Read(p []byte) (int, error) {
	if n := min(chunk, c.b.total); int64(len(p)) > n {
		p = p[:n]
	}
	n, err := c.ReadCloser.Read(p)
	if due := int64(n) - c.prepaid; due > 0 {
		if aerr := c.charge(due); aerr != nil {
			return 0, aerr
		}
	}
	c.prepaid = max(c.prepaid-int64(n), 0)
	switch {
	case errors.Is(err, io.EOF):
		// The body is in: later reads are the server's watch for the
		// client going away, which must not end the request at the
		// body's deadline.
		_ = c.rc.SetReadDeadline(time.Time{})
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.refuse(RefusedTimeout)
		err = fmt.Errorf("read body: %w", ErrSlowBody)
	}
	return n, err
}

// reserve charges n bytes ahead of the reads that fill a buffer of them.
// A nil c (a body the middleware did not wrap) charges nothing.
func (c *chargedBody) reserve(n int64) error {
	if c == nil || n <= 0 {
		return nil
	}
	if err := c.charge(n); err != nil {
		return err
	}
	c.prepaid += n
	return nil
}

func (c *chargedBody) charge(n int64) error {
	err := c.b.acquire(c.ctx, c.client, n)
	switch {
	case errors.Is(err, ErrClientBusy):
		c.refuse(RefusedClient)
	case err != nil:
		c.refuse(RefusedBusy)
	default:
		c.held += n
	}
	return err
}

func (c *chargedBody) refuse(reason string) {
	if c.refused != nil {
		c.refused(reason)
	}
}

func (c *chargedBody) release() {
	if c.held > 0 {
		c.b.credit(c.client, c.held)
		c.held = 0
	}
}

// acquire takes n bytes of the client's allowance, at once or not at all,
// then n bytes of the budget, waiting at most b.wait for them.
func (b *Budget) acquire(ctx context.Context, client string, n int64) error {
	b.mu.Lock()
	ok := b.clients[client]+n <= b.perClient
	if ok {
		b.clients[client] += n
	}
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("read body: %w", ErrClientBusy)
	}
	if b.sem.TryAcquire(n) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	if err := b.sem.Acquire(ctx, n); err != nil {
		b.giveBack(client, n)
		return fmt.Errorf("read body: %w", ErrBusy)
	}
	return nil
}

// credit gives n bytes back to the budget and to the client's allowance.
func (b *Budget) credit(client string, n int64) {
	b.sem.Release(n)
	b.giveBack(client, n)
}

func (b *Budget) giveBack(client string, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.clients[client] -= n; b.clients[client] <= 0 {
		delete(b.clients, client)
	}
}
