package gateway

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// Each rule of the log policy on its own: an attribute naming a chat or a
// person is hashed, one carrying text is left out, an error naming a chat
// or a WhatsApp JID has it hashed, a key comes once per line.
func TestLogPolicyRules(t *testing.T) {
	const phone = "447700900123"
	cfg := LogConfig{Format: "json", RedactChats: true, RedactKey: "policy-test-key-0123456789"}
	for _, key := range []string{"chat", "key", "member", "target", "actor", "user", "user_id", "jid"} {
		t.Run("id "+key, func(t *testing.T) {
			out := logLine(cfg, func(l *slog.Logger) { l.Info("x", key, "botgw:{whatsapp:"+phone+"@s.whatsapp.net}:pending") })
			if strings.Contains(out, phone) || !strings.Contains(out, `"`+key+`":"#`) {
				t.Errorf("%s is not hashed: %s", key, out)
			}
		})
	}
	for _, key := range []string{"text", "reply", "entry"} {
		t.Run("content "+key, func(t *testing.T) {
			if out := logLine(cfg, func(l *slog.Logger) { l.Info("x", key, "my secret") }); strings.Contains(out, "secret") {
				t.Errorf("%s is logged without log.content: %s", key, out)
			}
			withContent := cfg
			withContent.Content = true
			if out := logLine(withContent, func(l *slog.Logger) { l.Info("x", key, "my secret") }); !strings.Contains(out, "my secret") {
				t.Errorf("%s is left out with log.content: %s", key, out)
			}
		})
	}
	t.Run("ids inside errors", func(t *testing.T) {
		out := logLine(cfg, func(l *slog.Logger) {
			l.Warn("x", "err", errors.New("read chat telegram:"+phone+": send to "+phone+".0:7@s.whatsapp.net failed"))
		})
		if strings.Contains(out, phone) || !strings.Contains(out, "telegram:#") {
			t.Errorf("an id inside an error is in clear: %s", out)
		}
	})
	t.Run("one key once", func(t *testing.T) {
		out := logLine(cfg, func(l *slog.Logger) {
			l.With("channel", "whatsapp").With("channel", "whatsapp").Info("x", "channel", "whatsapp", "state", "a", "state", "b")
		})
		if strings.Count(out, `"channel"`) != 1 || strings.Count(out, `"state"`) != 1 {
			t.Errorf("a key twice: %s", out)
		}
	})
	t.Run("off", func(t *testing.T) {
		out := logLine(LogConfig{Format: "json", Content: true}, func(l *slog.Logger) { l.Info("x", "chat", "telegram:"+phone) })
		if !strings.Contains(out, "telegram:"+phone) {
			t.Errorf("without redact_chats the chat is not in clear: %s", out)
		}
	})
}

func logLine(cfg LogConfig, f func(*slog.Logger)) string {
	var buf bytes.Buffer
	f(NewLogger(cfg, &buf))
	return buf.String()
}
