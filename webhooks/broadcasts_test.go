package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state"
)

// fakeBroadcasts records what the routes hand over.
type fakeBroadcasts struct {
	mu        sync.Mutex
	created   map[string]int
	last      botgw.Event
	message   string
	cancelled int
}

func (f *fakeBroadcasts) Create(_ context.Context, id string, chats []string, message string, ev botgw.Event) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.created[id]; ok {
		return n, nil
	}
	f.created[id], f.last, f.message = len(chats), ev, message
	return len(chats), nil
}

func (f *fakeBroadcasts) Progress(_ context.Context, id string) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.created[id]; ok {
		return map[string]any{"id": id, "total": n}, nil
	}
	return nil, botgw.ErrNotFound
}

func (f *fakeBroadcasts) Cancel(ctx context.Context, id string) (any, error) {
	f.mu.Lock()
	f.cancelled++
	f.mu.Unlock()
	return f.Progress(ctx, id)
}

func broadcastServer(t testing.TB) (*fakeBroadcasts, http.Handler) {
	t.Helper()
	st, err := state.Open(context.Background(), state.Config{}, state.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rec, fb := &recorder{}, &fakeBroadcasts{created: map[string]int{}}
	ev := NewEvents(secret, rec.deliver, st, []string{"telegram", "web"}, slog.New(slog.DiscardHandler))
	return fb, New(Deps{Deliver: rec.deliver, Events: ev, Broadcasts: fb}).Handler()
}

func do(h http.Handler, method, path, body string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

var bcBearer = map[string]string{"Authorization": "Bearer " + secret}

func TestBroadcastRoutes(t *testing.T) {
	fb, h := broadcastServer(t)
	body := `{"id":"final-round","chats":["telegram:1","web:a"],"event":{"text":"Final round","key":"round"},"respond":true}`
	if w := do(h, http.MethodPost, "/v1/broadcasts", body, nil); w.Code != http.StatusUnauthorized {
		t.Errorf("no auth: %d, want 401", w.Code)
	}
	if len(fb.created) != 0 {
		t.Fatal("a broadcast without auth was stored")
	}
	w := do(h, http.MethodPost, "/v1/broadcasts", body, bcBearer)
	if w.Code != http.StatusAccepted || !strings.Contains(w.Body.String(), `"total":2`) {
		t.Fatalf("POST: %d %s", w.Code, w.Body)
	}
	if !reflect.DeepEqual(fb.last, botgw.Event{Text: "Final round", Key: "round", Respond: true}) {
		t.Errorf("event handed over: %+v", fb.last)
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	signed := map[string]string{"X-Botgw-Timestamp": ts, "X-Botgw-Signature": Sign([]byte(secret), ts, []byte("GET /v1/broadcasts/final-round"))}
	if w := do(h, http.MethodGet, "/v1/broadcasts/final-round", "", signed); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"total":2`) {
		t.Errorf("signed GET: %d %s", w.Code, w.Body)
	}
	if w := do(h, http.MethodDelete, "/v1/broadcasts/final-round", "", signed); w.Code != http.StatusUnauthorized || fb.cancelled != 0 {
		t.Errorf("a GET's signature on DELETE: %d, %d cancelled; want 401 and nothing cancelled", w.Code, fb.cancelled)
	}
	if w := do(h, http.MethodGet, "/v1/broadcasts/other", "", signed); w.Code != http.StatusUnauthorized {
		t.Errorf("a signature of another path: %d, want 401", w.Code)
	}
	if w := do(h, http.MethodGet, "/v1/broadcasts/nope", "", bcBearer); w.Code != http.StatusNotFound {
		t.Errorf("GET unknown: %d, want 404", w.Code)
	}
	if w := do(h, http.MethodDelete, "/v1/broadcasts/final-round", "", map[string]string{"Authorization": "Bearer wrong"}); w.Code != http.StatusUnauthorized {
		t.Errorf("DELETE with a wrong token: %d, want 401", w.Code)
	}
}

func TestBroadcastBadBodies(t *testing.T) {
	_, h := broadcastServer(t)
	for body, field := range map[string]string{
		`{"chats":["telegram:1"],"message":"hi"}`:                               "id:",
		`{"id":"a b","chats":["telegram:1"],"message":"hi"}`:                    "id:",
		`{"id":"x","chats":[],"message":"hi"}`:                                  "chats:",
		`{"id":"x","chats":["telegram:1"]}`:                                     "message:",
		`{"id":"x","chats":["telegram:1"],"message":"hi","event":{"text":"e"}}`: "message:",
		`{"id":"x","chats":["telegram:1"],"message":"hi","respond":true}`:       "respond:",
		`{"id":"x","chats":["telegram:1"],"event":{"text":" "}}`:                "event.text:",
		`{"id":"x","chats":["telegram:1","slack:C1"],"message":"hi"}`:           "chats[1]:",
		`{"id":"x","chats":["telegram:1","nochannel"],"message":"hi"}`:          "chats[1]:",
		`{"id":"x","chats":["telegram:1","telegram:1"],"message":"hi"}`:         "chats[1]:",
		`{"id":"x","chats":["telegram:1"],"message":"hi","extra":1}`:            "body:",
	} {
		w := do(h, http.MethodPost, "/v1/broadcasts", body, bcBearer)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), field) {
			t.Errorf("%s: %d %s, want 400 naming %s", body, w.Code, w.Body, field)
		}
	}
	many := make([]string, maxBroadcastChats+1)
	for i := range many {
		many[i] = fmt.Sprintf("%q", fmt.Sprintf("telegram:%d", i))
	}
	w := do(h, http.MethodPost, "/v1/broadcasts", `{"id":"x","message":"hi","chats":[`+strings.Join(many, ",")+`]}`, bcBearer)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "chats:") {
		t.Errorf("100,001 chats: %d %s, want 400 naming chats", w.Code, w.Body)
	}
	big := `{"id":"x","message":"` + strings.Repeat("x", maxBroadcastBody) + `","chats":["telegram:1"]}`
	if w := do(h, http.MethodPost, "/v1/broadcasts", big, bcBearer); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("17 MiB body: %d, want 413", w.Code)
	}
}
