package webhooks

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestObserveReportsRoutePatternAndTheStatusSent(t *testing.T) {
	type seen struct {
		route  string
		status int
	}
	var got []seen
	s := New(Deps{Admin: NewAdmin("tok", nil, nil), Observe: func(route string, status int, _ time.Duration) {
		got = append(got, seen{route, status})
	}})
	for _, p := range []string{"/healthz", "/v1/admin/chats/telegram:42", "/scanner/probe/123"} {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code >= 400 && !strings.Contains(rec.Body.String(), `"error"`) {
			t.Errorf("%s: error answer is not JSON: %d %q", p, rec.Code, rec.Body)
		}
	}
	want := []seen{{"/healthz", 200}, {"/v1/admin/chats/:chat", 401}, {"", 404}}
	if len(got) != len(want) {
		t.Fatalf("observed %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d observed as %v, want %v (a pattern, never the raw path)", i, got[i], want[i])
		}
	}
}
