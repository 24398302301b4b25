package state

import (
	"context"
	"testing"
	"time"
)

// The first value pinned under a name is what every later caller gets,
// until it expires unused.
func TestAliasesPinFirstValue(t *testing.T) {
	for name, newH := range map[string]newHarness{"miniredis": miniHarness, "redis": realHarness} {
		t.Run(name, func(t *testing.T) {
			h := newH(t, Options{})
			al, ctx := h.s.Aliases(), context.Background()
			for _, try := range []string{"lid-key", "phone-key"} {
				if v, err := al.Pin(ctx, "whatsapp:1@lid", try, time.Second); err != nil || v != "lid-key" {
					t.Fatalf("Pin(%q) = %q, %v; want the first value", try, v, err)
				}
			}
			h.advance(1100 * time.Millisecond)
			if v, _ := al.Pin(ctx, "whatsapp:1@lid", "phone-key", time.Second); v != "phone-key" {
				t.Errorf("after expiry Pin = %q, want the new value", v)
			}
		})
	}
}
