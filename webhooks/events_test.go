package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state"
)

// recorder is a botgw.Deliver that keeps what it was given.
type recorder struct {
	mu   sync.Mutex
	got  []botgw.Inbound
	fail int // the next fail deliveries fail, as with Redis down
}

func (r *recorder) deliver(_ context.Context, in botgw.Inbound) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail > 0 {
		r.fail--
		return errors.New("redis: connection refused")
	}
	r.got = append(r.got, in)
	return nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

const secret = "s3cret-events"

func eventsServer(t *testing.T) (*recorder, http.Handler) {
	t.Helper()
	st, err := state.Open(context.Background(), state.Config{}, state.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rec := &recorder{}
	ev := NewEvents(secret, rec.deliver, st, []string{"whatsapp", "web"}, slog.New(slog.DiscardHandler))
	return rec, New(Deps{Deliver: rec.deliver, Events: ev}).Handler()
}

func post(h http.Handler, body string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/v1/events", strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

var bearer = map[string]string{"Authorization": "Bearer " + secret}

func TestEventsValidation(t *testing.T) {
	big := `{"chat":"web:a","text":"` + strings.Repeat("x", 1<<20) + `"}`
	for _, tc := range []struct {
		name, body string
		header     map[string]string
		status     int
		errHas     string
	}{
		{"accepted", `{"chat":"whatsapp:447700900123@s.whatsapp.net","text":"visited the theatre","id":"evt-1","key":"location"}`, bearer, 202, ""},
		{"batch", `{"events":[{"chat":"web:a","text":"one"},{"chat":"web:b","text":"two"}]}`, bearer, 202, ""},
		{"missing bearer", `{"chat":"web:a","text":"x"}`, nil, 401, "authorization"},
		{"wrong bearer", `{"chat":"web:a","text":"x"}`, map[string]string{"Authorization": "Bearer nope"}, 401, "authorization"},
		{"bad json", `{"chat":`, bearer, 400, "body"},
		{"missing chat", `{"text":"x"}`, bearer, 400, "chat: required"},
		{"missing text", `{"chat":"web:a"}`, bearer, 400, "text: required"},
		{"unknown field", `{"chat":"web:a","text":"x","colour":"red"}`, bearer, 400, "colour"},
		{"unknown channel", `{"chat":"telegram:1","text":"x"}`, bearer, 404, "chat: unknown channel"},
		{"batch names the index", `{"events":[{"chat":"web:a","text":"ok"},{"chat":"web:b"}]}`, bearer, 400, "events[1].text: required"},
		{"too large", big, bearer, 413, "1 MiB"},
		{"field next to events", `{"events":[{"chat":"web:a","text":"x"}],"respond":true}`, bearer, 400, "respond"},
		{"NUL in chat", `{"chat":"web:a\u0000b","text":"x"}`, bearer, 400, "chat:"},
		{"control in chat", `{"chat":"web:a\u0007b","text":"x"}`, bearer, 400, "chat:"},
		{"long chat", `{"chat":"web:` + strings.Repeat("x", 60000) + `","text":"x"}`, bearer, 400, "chat:"},
		{"batch bad chat", `{"events":[{"chat":"web:ok","text":"x"},{"chat":"web:\u0000","text":"x"}]}`, bearer, 400, "events[1].chat:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, h := eventsServer(t)
			w := post(h, tc.body, tc.header)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.errHas) {
				t.Fatalf("got %d %s, want %d containing %q", w.Code, w.Body, tc.status, tc.errHas)
			}
			if tc.status != 202 && rec.count() != 0 {
				t.Errorf("refused request stored %d events", rec.count())
			}
		})
	}
}

func TestEventsSignature(t *testing.T) {
	rec, h := eventsServer(t)
	body := `{"chat":"web:a","text":"signed","id":"evt-9"}`
	signed := func(ts time.Time) map[string]string {
		s := strconv.FormatInt(ts.Unix(), 10)
		return map[string]string{"X-Botgw-Timestamp": s, "X-Botgw-Signature": Sign([]byte(secret), s, []byte(body))}
	}
	fresh := signed(time.Now())
	if w := post(h, body, fresh); w.Code != 202 {
		t.Fatalf("valid signature: %d %s", w.Code, w.Body)
	}
	if w := post(h, body, fresh); w.Code != 401 || !strings.Contains(w.Body.String(), "replay") {
		t.Errorf("replayed signature: %d %s, want 401 naming the replay", w.Code, w.Body)
	}
	if w := post(h, body, signed(time.Now().Add(-10*time.Minute))); w.Code != 401 {
		t.Errorf("10-minute-old signature: %d, want 401", w.Code)
	}
	tampered := signed(time.Now().Add(time.Second))
	if w := post(h, strings.Replace(body, "signed", "forged", 1), tampered); w.Code != 401 {
		t.Errorf("tampered body: %d, want 401", w.Code)
	}
	if rec.count() != 1 {
		t.Errorf("stored %d events, want 1", rec.count())
	}
	in := rec.got[0]
	if in.Kind != botgw.KindEvent || in.ID != "evt:evt-9" || in.Event.Text != "signed" {
		t.Errorf("stored %+v", in)
	}
}

// TestSignedEventRetriedAfterAFailureIsAccepted: a signed request that
// stored nothing (503) or was malformed (400) has not used its signature,
// so the backend's retry of the same request is not refused as a replay.
func TestSignedEventRetriedAfterAFailureIsAccepted(t *testing.T) {
	rec, h := eventsServer(t)
	sign := func(body string) map[string]string {
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		return map[string]string{"X-Botgw-Timestamp": ts, "X-Botgw-Signature": Sign([]byte(secret), ts, []byte(body))}
	}
	bad := `{"chat":"web:a"}`
	badSig := sign(bad)
	for range 2 {
		if w := post(h, bad, badSig); w.Code != 400 || !strings.Contains(w.Body.String(), "text") {
			t.Errorf("signed body without text: %d %s, want 400 naming text both times", w.Code, w.Body)
		}
	}
	body := `{"chat":"web:a","text":"you reached the theatre"}`
	hdr := sign(body)
	rec.mu.Lock()
	rec.fail = 1
	rec.mu.Unlock()
	if w := post(h, body, hdr); w.Code != 503 {
		t.Fatalf("signed event while the store fails: %d %s, want 503", w.Code, w.Body)
	}
	if w := post(h, body, hdr); w.Code != 202 {
		t.Fatalf("retry of the same signed request: %d %s, want 202", w.Code, w.Body)
	}
	if w := post(h, body, hdr); w.Code != 401 {
		t.Errorf("third copy after it was stored: %d, want 401 (replay)", w.Code)
	}
	if rec.count() != 1 {
		t.Errorf("stored %d events, want 1", rec.count())
	}
}

// ExampleSign matches: printf %s "1700000000.<body>" | openssl dgst -sha256 -hmac secret
func ExampleSign() {
	fmt.Println(Sign([]byte("secret"), "1700000000", []byte(`{"chat":"web:a","text":"hi"}`))[:10])
	// Output: v1=9ab2869
}
