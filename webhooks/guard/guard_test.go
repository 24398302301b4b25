package guard

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

func TestBearerSchemeIsCaseInsensitiveAndTheTokenIsNot(t *testing.T) {
	secret := []byte("s3cret")
	for _, c := range []struct {
		header string
		want   bool
	}{
		{"Bearer s3cret", true},
		{"bearer s3cret", true},
		{"BEARER s3cret", true},
		{"bEaReR   s3cret", true},
		{"Bearer S3CRET", false},
		{"Bearer s3cret ", false},
		{"Bearers3cret", false},
		{"Basic s3cret", false},
		{"s3cret", false},
		{"Bearer ", false},
		{"", false},
	} {
		h := http.Header{}
		if c.header != "" {
			h.Set("Authorization", c.header)
		}
		if got := BearerIs(h, secret); got != c.want {
			t.Errorf("Authorization %q: %v, want %v", c.header, got, c.want)
		}
	}
	if BearerIs(http.Header{"Authorization": {"Bearer "}}, nil) {
		t.Error("an empty secret matched")
	}
}

// countingBody records how many bytes were read from it.
type countingBody struct {
	left, read int
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, errors.New("EOF")
	}
	n := min(len(p), b.left)
	b.left -= n
	b.read += n
	return n, nil
}

func (b *countingBody) Close() error { return nil }

func TestReadBodyRefusesADeclaredOversizeBodyUnread(t *testing.T) {
	body := &countingBody{left: 50 << 20}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Body, r.ContentLength = body, 50<<20
	_, err := ReadBody(httptest.NewRecorder(), r, 1<<20)
	status, msg := Status(httptest.NewRecorder(), err)
	if status != http.StatusRequestEntityTooLarge || msg != "body: larger than 1 MiB" {
		t.Fatalf("50 MiB declared: %d %q", status, msg)
	}
	if body.read != 0 {
		t.Errorf("read %d bytes of a body refused by its Content-Length", body.read)
	}
	body = &countingBody{left: 50 << 20} // chunked: no length declared
	r.Body, r.ContentLength = body, -1
	_, err = ReadBody(httptest.NewRecorder(), r, 1<<20)
	if status, _ := Status(httptest.NewRecorder(), err); status != http.StatusRequestEntityTooLarge {
		t.Fatalf("50 MiB chunked: %d", status)
	}
	if body.read > 1<<20+chunk {
		t.Errorf("read %d bytes of a chunked body limited to 1 MiB", body.read)
	}
}

// TestBudgetBoundsBodiesInFlight holds one request that has read most of
// the budget and checks that a second one is refused 503 until the first
// ends; then a body of the whole budget fits.
func TestBudgetBoundsBodiesInFlight(t *testing.T) {
	b := NewBudget(128<<10, 20*time.Millisecond)
	hold, held := make(chan struct{}), make(chan struct{})
	h := b.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := ReadBody(w, r, 1<<20)
		if r.URL.Path == "/hold" {
			close(held)
			<-hold
		}
		if err != nil {
			status, msg := Status(w, err)
			http.Error(w, msg, status)
		}
	}))
	post := func(path string, n int) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(strings.Repeat("x", n))))
		return w
	}
	go post("/hold", 100<<10)
	<-held
	if w := post("/other", 64<<10); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("a body while the budget is spent: %d, Retry-After %q; want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	close(hold)
	deadline := time.Now().Add(5 * time.Second)
	for post("/other", 128<<10).Code != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("the budget was not given back when the request ended")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestClientIsTheNearestHopOutsideTheTrustedProxies(t *testing.T) {
	proxies, err := ParseProxies([]string{"10.0.0.0/8", "192.0.2.7", "fd00::/8"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, remote, xff, want string
	}{
		{"direct, header ignored", "203.0.113.9:5000", "198.51.100.1", "203.0.113.9"},
		{"one proxy", "10.1.2.3:5000", "198.51.100.1", "198.51.100.1"},
		{"spoofed entries left of the real client", "10.1.2.3:5000", "1.1.1.1, 2.2.2.2, 198.51.100.1", "198.51.100.1"},
		{"two proxies", "10.1.2.3:5000", "198.51.100.1, 192.0.2.7", "198.51.100.1"},
		{"garbage past the proxies", "10.1.2.3:5000", "not-an-ip, 10.9.9.9", "10.9.9.9"},
		{"only proxies", "10.1.2.3:5000", "10.0.0.5", "10.0.0.5"},
		{"no header", "10.1.2.3:5000", "", "10.1.2.3"},
		{"IPv6 client is its /64", "[fd00::1]:5000", "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"IPv4-mapped peer", "[::ffff:10.1.2.3]:5000", "198.51.100.1", "198.51.100.1"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := proxies.Client(r); got != c.want {
			t.Errorf("%s: client %q, want %q", c.name, got, c.want)
		}
	}
	if _, err := ParseProxies([]string{"10.0.0.0/8", "10.0.0.0/33"}); err == nil || !strings.HasPrefix(err.Error(), "trusted_proxies[1]") {
		t.Errorf("a bad CIDR: %v, want an error naming trusted_proxies[1]", err)
	}
}

func TestWithinAnswersWhileTheStoreStalls(t *testing.T) {
	release, stored := make(chan struct{}), make(chan struct{})
	deliver := Within(50*time.Millisecond, func(ctx context.Context, in botgw.Inbound) error {
		<-release
		close(stored)
		return nil
	})
	err := deliver(context.Background(), botgw.Inbound{ID: "1"})
	if !errors.Is(err, ErrStalled) {
		t.Fatalf("a stalled store: %v, want ErrStalled", err)
	}
	close(release) // the store answers late: the input still lands
	<-stored
	ok := Within(time.Second, func(context.Context, botgw.Inbound) error { return nil })
	if err := ok(context.Background(), botgw.Inbound{ID: "2"}); err != nil {
		t.Fatalf("a store that answers: %v", err)
	}
}
