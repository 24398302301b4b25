package channels

import (
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
// a whole request.
func HTTPClient(timeout time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = maxIdlePerHost
	t.MaxIdleConns = 2 * maxIdlePerHost
	return &http.Client{Transport: t, Timeout: timeout}
}
