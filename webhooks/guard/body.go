package guard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"golang.org/x/sync/semaphore"
)

// Bodies in flight: every route's body counts against one budget shared by
// all requests of the process, so strangers sending large bodies cannot
// make the gateway hold more than this, however many they send at once.
const (
	// DefaultBodyBudget is the bytes of request bodies all requests in
	// flight may hold together.
	DefaultBodyBudget = 32 << 20
	// DefaultBodyWait is how long a read waits for room in the budget
	// before the request is answered 503.
	DefaultBodyWait = time.Second
	// chunk is the most one Read takes at a time: a request is charged for
	// what it read, and goes over its share by at most this while it waits.
	chunk = 32 << 10
)

// ErrBusy is a body read refused because the budget of bodies in flight
// stayed full: answer 503 with Retry-After, the client retries.
var ErrBusy = errors.New("request bodies in flight are at the gateway's limit")

// Budget bounds the bytes of request bodies that the requests in flight
// have read: a request is charged as it reads and credited when its handler
// returns. It is safe for concurrent use.
type Budget struct {
	sem   *semaphore.Weighted
	total int64
	wait  time.Duration
}

// NewBudget builds a budget of total bytes; a read waits at most wait for
// room. Zero values take the defaults.
func NewBudget(total int64, wait time.Duration) *Budget {
	if total <= 0 {
		total = DefaultBodyBudget
	}
	if wait <= 0 {
		wait = DefaultBodyWait
	}
	return &Budget{sem: semaphore.NewWeighted(total), total: total, wait: wait}
}

// Middleware charges every body the handler reads to the budget and
// credits it when the handler returns. A read past the budget fails with
// ErrBusy.
func (b *Budget) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		cb := &chargedBody{ReadCloser: r.Body, b: b, ctx: r.Context()}
		r.Body = cb
		defer cb.release()
		next.ServeHTTP(w, r)
	})
}

// chargedBody is a request body whose reads are charged to a Budget.
type chargedBody struct {
	io.ReadCloser
	b       *Budget
	ctx     context.Context
	held    int64 // charged, credited when the handler returns
	prepaid int64 // charged by reserve and not read yet
}

func (c *chargedBody) Read(p []byte) (int, error) {
	if n := min(chunk, c.b.total); int64(len(p)) > n {
		p = p[:n]
	}
	n, err := c.ReadCloser.Read(p)
	if due := int64(n) - c.prepaid; due > 0 {
		if aerr := c.b.acquire(c.ctx, due); aerr != nil {
			return 0, aerr
		}
		c.held += due
	}
	c.prepaid = max(c.prepaid-int64(n), 0)
	return n, err
}

// reserve charges n bytes ahead of the reads that fill a buffer of them.
// A nil c (a body the middleware did not wrap) charges nothing.
func (c *chargedBody) reserve(n int64) error {
	if c == nil {
		return nil
	}
	if err := c.b.acquire(c.ctx, n); err != nil {
		return err
	}
	c.held += n
	c.prepaid += n
	return nil
}

func (c *chargedBody) release() {
	if c.held > 0 {
		c.b.sem.Release(c.held)
		c.held = 0
	}
}

// acquire takes n bytes of the budget, waiting at most b.wait.
func (b *Budget) acquire(ctx context.Context, n int64) error {
	if b.sem.TryAcquire(n) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	if err := b.sem.Acquire(ctx, n); err != nil {
		return fmt.Errorf("read body: %w", ErrBusy)
	}
	return nil
}

// ReadBody reads a request body of at most limit bytes. A Content-Length
// over the limit is refused before a byte is read; a body that grows past
// it while being read (chunked) is refused as soon as it does. A declared
// length is charged to the budget before the buffer for it is made.
// Errors are *http.MaxBytesError (413), ErrBusy (503) or a read error
// (400): see Status.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	n := r.ContentLength
	if n > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	cb, _ := r.Body.(*chargedBody)
	if n < 0 {
		return readChunked(body, cb)
	}
	if err := cb.reserve(n); err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(body, buf); err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	return buf, nil
}

// readChunked reads a body of unknown length in chunks, then joins them,
// charging the joined copy too: the chunks are garbage only once the
// collector runs, so the budget counts them until the request ends.
func readChunked(body io.Reader, cb *chargedBody) ([]byte, error) {
	var parts [][]byte
	total := 0
	for {
		p := make([]byte, chunk)
		n, err := io.ReadFull(body, p)
		parts, total = append(parts, p[:n]), total+n
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read body: %w", err)
		}
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	if err := cb.reserve(int64(total)); err != nil {
		return nil, err
	}
	out := make([]byte, 0, total)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out, nil
}

// LimitBody is r.Body bounded to limit bytes for a decoder; see ReadBody
// for the errors. A Content-Length over the limit fails the first read.
func LimitBody(w http.ResponseWriter, r *http.Request, limit int64) io.Reader {
	if r.ContentLength > limit {
		return errReader{&http.MaxBytesError{Limit: limit}}
	}
	return http.MaxBytesReader(w, r.Body, limit)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Status is the answer to a body that could not be read: 413 past the
// limit (naming it), 503 when the budget of bodies in flight is full, else
// 400. It sets Retry-After on 503.
func Status(w http.ResponseWriter, err error) (int, string) {
	if tooBig, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return http.StatusRequestEntityTooLarge, "body: larger than " + Size(tooBig.Limit)
	}
	if errors.Is(err, ErrBusy) {
		w.Header().Set("Retry-After", "1")
		return http.StatusServiceUnavailable, ErrBusy.Error() + "; retry"
	}
	return http.StatusBadRequest, "body: could not be read"
}

// Unread reports whether err is a body refused for its size or for the
// budget (413 or 503), not one that was read and found bad.
func Unread(err error) bool {
	_, tooBig := errors.AsType[*http.MaxBytesError](err)
	return tooBig || errors.Is(err, ErrBusy)
}

// Size writes a byte count the way the limits table does: "1 MiB", "64 KiB".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
