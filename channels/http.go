package channels

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxIdlePerHost is how many idle connections a platform client keeps to
// its API host: about as many as turns may deliver at once when a slow
// model's turns end together, so a busy gateway reuses its TLS connections
// instead of opening one per reply (net/http's default keeps 2). Idle
// connections close after net/http's 90 s.
const maxIdlePerHost = 256

// HTTPClient is the client for a platform's Web API: net/http's default
// transport (proxy from the environment, HTTP/2, dial and TLS timeouts)
// keeping up to maxIdlePerHost idle connections per host, and timeout for
// each request, its answer's body included.
//
// The timeout is the request context's deadline, set by the client's
// transport, not http.Client.Timeout: net/http enforces a Timeout around a
// transport it does not know with a timer and a goroutine of its own for
// every request.
func HTTPClient(timeout time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = maxIdlePerHost
	t.MaxIdleConns = 2 * maxIdlePerHost
	return &http.Client{Transport: sizedBody{next: t, timeout: timeout}}
}

// sizedBody sends a request body of unknown length (go-telegram/bot streams
// its multipart form through a pipe) with its length: net/http would
// otherwise probe it from another goroutine and send it chunked, in several
// writes. Platform requests are small (a message of at most a few KB; files
// are not sent), so buffering costs little. It ends each request, body
// included, after timeout (0: never).
type sizedBody struct {
	next    http.RoundTripper
	timeout time.Duration
}

func (s sizedBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody && req.ContentLength == 0 {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
		sized := *req // RoundTrip must not change the caller's request
		sized.ContentLength = int64(len(body))
		sized.Body = io.NopCloser(bytes.NewReader(body))
		sized.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req = &sized
	}
	if s.timeout <= 0 {
		return s.next.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), s.timeout)
	res, err := s.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
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
