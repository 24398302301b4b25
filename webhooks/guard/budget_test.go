package guard

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBudgetRefusesOnlyTheClientOverItsAllowance: one client whose bodies
// in flight hold its whole allowance is refused 429 with Retry-After and
// counted; another client's body is read as usual; the allowance comes
// back when the first client's request ends.
func TestBudgetRefusesOnlyTheClientOverItsAllowance(t *testing.T) {
	var mu sync.Mutex
	refused := map[string]int{}
	b := NewBudget(1<<20, 20*time.Millisecond).PerClient(128<<10, nil)
	hold, held := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer b.Track(w, r, func(reason string) { mu.Lock(); refused[reason]++; mu.Unlock() })()
		_, err := ReadBody(w, r, 1<<20)
		if r.URL.Path == "/hold" {
			close(held)
			<-hold
		}
		if err != nil {
			status, msg := Status(w, err)
			http.Error(w, msg, status)
		}
	})
	post := func(path, peer string, n int) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(strings.Repeat("x", n)))
		r.RemoteAddr = peer
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	go post("/hold", "198.51.100.7:1000", 100<<10)
	<-held
	if w := post("/other", "198.51.100.7:1001", 64<<10); w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Errorf("the same client over its allowance: %d, Retry-After %q; want 429 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	if w := post("/other", "203.0.113.9:1000", 100<<10); w.Code != http.StatusOK {
		t.Errorf("another client while the first holds its allowance: %d, want 200", w.Code)
	}
	mu.Lock()
	if refused[RefusedClient] != 1 || len(refused) != 1 {
		t.Errorf("refusals counted %v, want one for the client's allowance", refused)
	}
	mu.Unlock()
	close(hold)
	deadline := time.Now().Add(5 * time.Second)
	for post("/other", "198.51.100.7:1002", 100<<10).Code != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("the client's allowance was not given back when its request ended")
		}
		time.Sleep(time.Millisecond)
	}
}

// silentBody declares a length and sends nothing until done is closed;
// its one Read tells reading it was called.
type silentBody struct {
	reading *sync.WaitGroup
	done    chan struct{}
}

func (s silentBody) Read([]byte) (int, error) {
	s.reading.Done()
	<-s.done
	return 0, io.ErrUnexpectedEOF
}

func (s silentBody) Close() error { return nil }

// TestADeclaredBodyThatNeverArrivesHoldsNextToNothing: requests that
// declare 16 MiB and send nothing hold at most one chunk each, so a body
// from the same client still fits in a budget smaller than one of them.
func TestADeclaredBodyThatNeverArrivesHoldsNextToNothing(t *testing.T) {
	b := NewBudget(4<<20, 20*time.Millisecond)
	done := make(chan struct{})
	defer close(done)
	var reading sync.WaitGroup
	for range 8 {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.Body, r.ContentLength = silentBody{&reading, done}, 16<<20
		release := b.Track(httptest.NewRecorder(), r, nil)
		reading.Add(1)
		go func() {
			defer release()
			_, _ = ReadBody(httptest.NewRecorder(), r, 16<<20)
		}()
	}
	reading.Wait() // each has made its buffer and waits for bytes
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", 3<<20)))
	release := b.Track(httptest.NewRecorder(), r, nil)
	defer release()
	if _, err := ReadBody(httptest.NewRecorder(), r, 16<<20); err != nil {
		t.Errorf("a 3 MiB body while 8 × 16 MiB are declared and unsent, in a 4 MiB budget: %v", err)
	}
}
