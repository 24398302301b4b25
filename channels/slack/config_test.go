package slack

import (
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // key paths named by the errors; none: valid
	}{
		{"events", Config{BotToken: "xoxb-1", SigningSecret: "s"}, nil},
		{"socket", Config{BotToken: "xoxb-1", Mode: "socket", AppToken: "xapp-1"}, nil},
		{"empty", Config{}, []string{"channels.slack.bot_token: required", "channels.slack.signing_secret: required"}},
		{"socket without app token", Config{BotToken: "xoxb-1", Mode: "socket"}, []string{"channels.slack.app_token:"}},
		{"tokens swapped", Config{BotToken: "xapp-1", Mode: "socket", AppToken: "xoxb-1"},
			[]string{"channels.slack.bot_token:", "channels.slack.app_token:"}},
		{"bad mode", Config{BotToken: "xoxb-1", Mode: "rtm"}, []string{"channels.slack.mode:"}},
		{"app", Config{SigningSecret: "s", ClientID: "1.2", ClientSecret: "c", TokenKey: testTokenKey}, nil},
		{"app without token_key", Config{SigningSecret: "s", ClientID: "1.2", ClientSecret: "c"},
			[]string{"channels.slack.token_key: required with client_id"}},
		{"app with a short key", Config{SigningSecret: "s", ClientID: "1.2", ClientSecret: "c", TokenKey: "c2hvcnQ=", TokenKeyOld: "%%"},
			[]string{"channels.slack.token_key: required with client_id: decodes to 5 bytes, want 32", "channels.slack.token_key_old: not base64"}},
		{"app without secret", Config{SigningSecret: "s", ClientID: "1.2", TokenKey: testTokenKey, Scopes: []string{"chat:write,im:history"}},
			[]string{"channels.slack.client_secret: required", "channels.slack.scopes[0]:"}},
		{"secret without client_id", Config{BotToken: "xoxb-1", SigningSecret: "s", ClientSecret: "c"}, []string{"channels.slack.client_id: required"}},
		{"bad api url", Config{BotToken: "xoxb-1", SigningSecret: "s", APIURL: "localhost:9000"}, []string{"channels.slack.api_url:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestNewPicksOneReceiveMode(t *testing.T) {
	for _, mode := range []string{"events", "socket"} {
		ch, err := New(Config{BotToken: "xoxb-1", SigningSecret: "s", Mode: mode, AppToken: "xapp-1"}, Env{Pacer: testPacer(t)}, discard())
		if err != nil {
			t.Fatal(err)
		}
		_, hook := ch.(botgw.WebhookReceiver)
		_, listen := ch.(botgw.Listener)
		if hook == listen || hook != (mode == "events") {
			t.Errorf("mode %s: webhook %v, listener %v", mode, hook, listen)
		}
		if ch.Name() != "slack" {
			t.Errorf("name %q", ch.Name())
		}
	}
}
