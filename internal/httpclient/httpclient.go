// Package httpclient holds the HTTP plumbing the platform clients
// (channels) and the model clients (providers) share: a transport that
// keeps its connections, and a deadline for each request that covers the
// answer's body.
package httpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Transport is net/http's default transport (proxy from the environment,
// HTTP/2, dial and TLS timeouts) keeping up to idlePerHost idle
// connections per host and twice that in all. net/http's default keeps
// 2 per host, so a burst of calls ending together would close the rest
// and dial them again for the next burst. Idle connections close after
// net/http's 90 s.
func Transport(idlePerHost int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = idlePerHost
	t.MaxIdleConns = 2 * idlePerHost
	return t
}

// Deadline ends each request that Next carries, its answer's body
// included, after D (0: never). When D ends a request whose caller is
// still waiting, the error says so and wraps context.DeadlineExceeded.
//
// The deadline is the request context's, not http.Client.Timeout: net/http
// enforces a Timeout around a transport it does not know with a timer and
// a goroutine of its own for every request.
type Deadline struct {
	Next http.RoundTripper
	D    time.Duration
}

func (d Deadline) RoundTrip(r *http.Request) (*http.Response, error) {
	if d.D <= 0 {
		return d.Next.RoundTrip(r)
	}
	ctx, cancel := context.WithTimeout(r.Context(), d.D)
	res, err := d.Next.RoundTrip(r.WithContext(ctx))
	if err != nil {
		cancel()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && r.Context().Err() == nil {
			err = fmt.Errorf("no answer within %s: %w", d.D, context.DeadlineExceeded)
		}
		return nil, err
	}
	res.Body = cancelOnClose{ReadCloser: res.Body, cancel: cancel}
	return res, nil
}

// cancelOnClose ends a request's context once its answer's body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
