package telegram

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A typing signal Telegram refuses is an error naming Telegram's reason,
// and one that never reached it an error without the bot token.
func TestTypingErrors(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`))
	}))
	defer refuse.Close()
	ta.apiURL = refuse.URL
	err := ta.sendTyping(t.Context(), target{chat: 100})
	if err == nil || !strings.Contains(err.Error(), "chat not found") {
		t.Errorf("typing refused by Telegram = %v, want its description", err)
	}
	refuse.Close()
	err = ta.sendTyping(t.Context(), target{chat: 100})
	if err == nil || strings.Contains(err.Error(), testToken) {
		t.Errorf("typing to a closed server = %v, want an error without the token", err)
	}
}
