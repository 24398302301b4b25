package channels

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A gateway delivering many replies at once must reuse its connections to
// the platform's API (each new one is a TCP and TLS handshake), not keep
// two and open the rest again on every burst as net/http's default does.
func TestPlatformClientReusesConnectionsAcrossBursts(t *testing.T) {
	const burst = 20
	var opened atomic.Int64
	release := make(chan struct{})
	var inFlight sync.WaitGroup
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Done()
		<-release // hold every request until the whole burst is in flight
		io.WriteString(w, `{"ok":true,"result":true}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	client := HTTPClient(10 * time.Second)
	for round := range 3 {
		release = make(chan struct{})
		inFlight.Add(burst)
		var done sync.WaitGroup
		for range burst {
			done.Go(func() {
				resp, err := client.Get(srv.URL)
				if err != nil {
					t.Errorf("round %d: %v", round, err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		inFlight.Wait()
		close(release)
		done.Wait()
	}
	if n := opened.Load(); n > burst {
		t.Errorf("3 bursts of %d requests opened %d connections, want at most %d (reused)", burst, n, burst)
	}
}
