package channels

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/botgw/botgw/internal/httpclient"
)

// maxIdlePerHost is how many idle connections a platform client keeps to
// its API host: as many as model calls may be in flight at once
// (provider.max_concurrency's default). The replies of turns that started
// together end together, and so do their typing signals where a channel
// sends them; a smaller pool would close most of those connections after
// each burst and open them again for the next. HTTP/2 hosts multiplex over
// one connection anyway.
const maxIdlePerHost = 1024

// HTTPClient is the client for a platform's Web API: a transport keeping
// up to maxIdlePerHost idle connections per host, and timeout for each
// request, its answer's body included (0: none). Its redirects keep
// credentials with their hosts (httpclient.CheckRedirect).
func HTTPClient(timeout time.Duration) *http.Client {
	next := httpclient.Deadline{Next: httpclient.Transport(maxIdlePerHost), D: timeout}
	return httpclient.New(sizedBody{next: next})
}

// sizedBody sends a request body of unknown length (go-telegram/bot streams
// its multipart form through a pipe) with its length: net/http would
// otherwise probe it from another goroutine and send it chunked, in several
// writes. Platform requests are small (a message of at most a few KB; files
// are not sent), so buffering costs little.
type sizedBody struct{ next http.RoundTripper }

func (s sizedBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody || req.ContentLength != 0 {
		return s.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	sized := *req // RoundTrip must not change the caller's request
	sized.ContentLength = int64(len(body))
	sized.Body = io.NopCloser(bytes.NewReader(body))
	sized.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return s.next.RoundTrip(&sized)
}
