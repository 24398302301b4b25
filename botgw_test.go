package botgw

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseChatKey(t *testing.T) {
	for in, want := range map[string]ChatKey{
		"telegram:-1001234567890/42":           {"telegram", "-1001234567890/42"},
		"slack:C0123ABC/1700000000.000100":     {"slack", "C0123ABC/1700000000.000100"},
		"whatsapp:447700900123@s.whatsapp.net": {"whatsapp", "447700900123@s.whatsapp.net"},
		"web:a:b":                              {"web", "a:b"},
	} {
		got, err := ParseChatKey(in)
		if err != nil || got != want || got.String() != in {
			t.Errorf("ParseChatKey(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "telegram", ":1", "telegram:", "Tele:1", "web:{x}", "web:a\nb",
		"web:a\x00b", "web:a\tb", "web:a\x7fb", "web:\xff", "web:" + strings.Repeat("x", MaxChatIDLen+1),
		strings.Repeat("a", MaxChannelLen+1) + ":1"} {
		if _, err := ParseChatKey(bad); err == nil {
			t.Errorf("ParseChatKey(%q) accepted a bad key", bad)
		}
	}
}

func TestProviderErrorRetryableThroughWrapping(t *testing.T) {
	for status, want := range map[int]bool{0: true, 400: false, 401: false, 408: true, 429: true, 500: true, 529: true} {
		err := fmt.Errorf("turn: %w", &ProviderError{Provider: "openai/x", Status: status, Err: errors.New("boom")})
		var pe *ProviderError
		if !errors.As(err, &pe) || pe.Retryable() != want {
			t.Errorf("status %d: retryable = %v, want %v", status, pe != nil && pe.Retryable(), want)
		}
	}
}
