package telegram

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/state/ratelimit/ratelimittest"
)

// A typing signal Telegram refuses is an error naming Telegram's reason,
// and one that never reached it an error without the bot token.
func TestTypingErrors(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	ta.api.Script("sendChatAction", channeltest.Reply{Status: 400, Body: `{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`})
	err := ta.sendTyping(t.Context(), target{chat: 100})
	if err == nil || !strings.Contains(err.Error(), "chat not found") {
		t.Errorf("typing refused by Telegram = %v, want its description", err)
	}

	closed := httptest.NewServer(nil)
	closed.Close()
	pacer, _ := ratelimittest.New(t)
	ch, err := New(Config{Token: testToken, WebhookSecret: testSecret, APIURL: closed.URL}, "", pacer, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = ch.(webhookChannel).sendTyping(t.Context(), target{chat: 100})
	if err == nil || strings.Contains(err.Error(), testToken) {
		t.Errorf("typing to a closed server = %v, want an error without the token", err)
	}
}
