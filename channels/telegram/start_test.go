package telegram

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/state/ratelimit/ratelimittest"
)

func TestStartRegistersWebhookAndCommands(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "https://bot.example.com/")
	hooks := ta.api.CallsTo("setWebhook")
	if len(hooks) != 1 {
		t.Fatalf("%d setWebhook calls, want 1", len(hooks))
	}
	p := hooks[0].Params
	if p["url"] != "https://bot.example.com/webhooks/telegram" || p["secret_token"] != testSecret || p["allowed_updates"] != `["message","edited_message","callback_query"]` {
		t.Errorf("setWebhook params = %v", p)
	}
	cmds := ta.api.CallsTo("setMyCommands")
	if len(cmds) != 1 {
		t.Fatalf("%d setMyCommands calls, want 1", len(cmds))
	}
	for _, c := range []string{`"command":"reset"`, `"command":"status"`, `"command":"help"`} {
		if !strings.Contains(cmds[0].Params["commands"], c) {
			t.Errorf("commands %s lack %s", cmds[0].Params["commands"], c)
		}
	}
	if me := ta.username.Load(); me == nil || *me != testBot {
		t.Errorf("username after Start = %v, want %s", me, testBot)
	}
}

func TestStartWithoutPublicURLLeavesWebhookAlone(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	if n := len(ta.api.CallsTo("setWebhook")); n != 0 {
		t.Errorf("%d setWebhook calls without public_url, want 0", n)
	}
}

func TestStartReportsFailures(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	ta.api.Script("getMe", channeltest.Reply{Status: 401, Body: `{"ok":false,"error_code":401,"description":"Unauthorized"}`})
	err := ta.Start(t.Context())
	if err == nil || !strings.Contains(err.Error(), "getMe") {
		t.Errorf("Start error = %v, want the getMe failure", err)
	}
}

func TestNewMakesNoNetworkCall(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for mode, want := range map[string]string{ModeWebhook: "webhook", ModePolling: "listener"} {
		// An address nobody listens on: New must not try it.
		cfg := Config{Token: testToken, Mode: mode, WebhookSecret: testSecret, APIURL: "http://127.0.0.1:1"}
		pacer, _ := ratelimittest.New(t)
		ch, err := New(cfg, "", pacer, log)
		if err != nil {
			t.Fatalf("New(%s): %v", mode, err)
		}
		_, isHook := ch.(botgw.WebhookReceiver)
		_, isListener := ch.(botgw.Listener)
		if got := map[bool]string{true: "webhook", false: "listener"}[isHook]; got != want || isHook == isListener {
			t.Errorf("mode %s: webhook %v listener %v, want exactly %s", mode, isHook, isListener, want)
		}
	}
}

func TestStartTyping(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	in := botgw.Inbound{Chat: botgw.ChatKey{Channel: Name, ID: "-1001234567890/42"}}
	stop := ta.StartTyping(context.Background(), in)
	ta.api.WaitFor(func() bool { return len(ta.api.CallsTo("sendChatAction")) > 0 })
	stop()
	n := len(ta.api.CallsTo("sendChatAction"))
	p := ta.api.CallsTo("sendChatAction")[0].Params
	if p["action"] != "typing" || p["chat_id"] != "-1001234567890" || p["message_thread_id"] != "42" {
		t.Errorf("sendChatAction params = %v", p)
	}
	stop() // a second stop is harmless
	if m := len(ta.api.CallsTo("sendChatAction")); m != n {
		t.Errorf("typing sent after stop returned (%d then %d calls)", n, m)
	}
}

// A turn waiting on the model for longer than Telegram shows "typing"
// (about 5 s) has the signal renewed.
func TestTypingIsRenewedWhileTheTurnWaits(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	in := botgw.Inbound{Chat: botgw.ChatKey{Channel: Name, ID: "42"}}
	stop := ta.StartTyping(t.Context(), in)
	ta.api.WaitFor(func() bool { return len(ta.api.CallsTo("sendChatAction")) >= 2 }) // the renewal comes after typingEvery
	stop()
	calls := ta.api.CallsTo("sendChatAction")
	for _, c := range calls {
		if c.Params["chat_id"] != "42" || c.Params["action"] != "typing" {
			t.Errorf("sendChatAction params = %v", c.Params)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // key paths named by the error; none means valid
	}{
		{"webhook", Config{Token: testToken, WebhookSecret: testSecret}, nil},
		{"polling needs no secret", Config{Token: testToken, Mode: ModePolling}, nil},
		{"empty", Config{}, []string{"channels.telegram.token: required", "channels.telegram.webhook_secret: required"}},
		{"bad values", Config{Token: "nocolon", Mode: "push", APIURL: "ftp://x", GroupTrigger: "some", RatePerSecond: -1, Burst: -2},
			[]string{".token:", ".mode:", ".api_url:", ".group_trigger:", ".rate_per_second:", ".burst:"}},
		{"secret charset", Config{Token: testToken, WebhookSecret: "has space"}, []string{".webhook_secret:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (err == nil) != (len(tc.want) == 0) {
				t.Fatalf("Validate() = %v, want problems %v", err, tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %v, lacks %q", err, w)
				}
			}
		})
	}
}
