package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/botgw/botgw"
)

// loggedOut is a session channel whose device was unlinked.
type loggedOut struct{}

func (loggedOut) Name() string                               { return "whatsapp" }
func (loggedOut) Send(context.Context, botgw.Outbound) error { return nil }
func (loggedOut) Health() error {
	return errors.New("logged out: run botgw whatsapp link to re-link")
}
func (loggedOut) Status() any { return map[string]any{"state": "logged_out", "linked": false} }

func TestAdminShowsTheWhatsAppLinkState(t *testing.T) {
	admin := NewAdmin("tok", nil, slog.New(slog.DiscardHandler)).WithChannels([]botgw.Channel{loggedOut{}})
	h := New(Deps{Admin: admin}).Handler()
	get := func(path, token string) (int, map[string]any) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		var v map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &v)
		return w.Code, v
	}
	if code, _ := get("/v1/admin/whatsapp", "wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d, want 401", code)
	}
	code, v := get("/v1/admin/whatsapp", "tok")
	status, _ := v["status"].(map[string]any)
	if code != 200 || v["healthy"] != false || status["state"] != "logged_out" {
		t.Fatalf("GET /v1/admin/whatsapp = %d %v", code, v)
	}
	if _, all := get("/v1/admin/channels", "tok"); all["whatsapp"] == nil {
		t.Errorf("GET /v1/admin/channels = %v", all)
	}
}
