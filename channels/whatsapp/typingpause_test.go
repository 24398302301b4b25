package whatsapp

import (
	"testing"
	"time"
)

// A typing pause is the text's length at 20 characters a second, within
// the configured bounds; a malformed range is refused.
func TestParsePauseRange(t *testing.T) {
	r, err := parsePauseRange("1s..8s")
	if err != nil || r != (pauseRange{time.Second, 8 * time.Second}) {
		t.Fatalf("parsePauseRange = %v, %v", r, err)
	}
	for text, want := range map[string]time.Duration{"hi": time.Second, string(make([]byte, 100)): 5 * time.Second, string(make([]byte, 1000)): 8 * time.Second} {
		if got := r.For(text); got != want {
			t.Errorf("pause for %d chars = %v, want %v", len(text), got, want)
		}
	}
	for _, bad := range []string{"1s", "8s..1s", "x..2s", "-1s..2s"} {
		if _, err := parsePauseRange(bad); err == nil {
			t.Errorf("parsePauseRange(%q) accepted", bad)
		}
	}
}
