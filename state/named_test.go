package state

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestNamedLeases(t *testing.T) {
	for name, newH := range map[string]newHarness{"miniredis": miniHarness, "redis": realHarness} {
		t.Run(name, func(t *testing.T) {
			h := newH(t, Options{})
			l, ctx := h.s.Leases(), context.Background()
			if ok, err := l.TryAcquire(ctx, "whatsapp", "a", time.Second); !ok || err != nil {
				t.Fatalf("first acquire: %v %v", ok, err)
			}
			if ok, _ := l.TryAcquire(ctx, "whatsapp", "b", time.Second); ok {
				t.Fatal("b took a lease a holds")
			}
			if ok, _ := l.Renew(ctx, "whatsapp", "b", time.Second); ok {
				t.Fatal("b renewed a's lease")
			}
			if err := l.Release(ctx, "whatsapp", "b"); err != nil {
				t.Fatal(err)
			}
			if ok, _ := l.Renew(ctx, "whatsapp", "a", time.Second); !ok {
				t.Fatal("b's release freed a's lease")
			}
			h.advance(1100 * time.Millisecond)
			if ok, _ := l.TryAcquire(ctx, "whatsapp", "b", time.Second); !ok {
				t.Fatal("b could not take the lease after it expired")
			}
		})
	}
}

func TestAuditStreamIsNewestFirst(t *testing.T) {
	h := miniHarness(t, Options{})
	a, ctx := h.s.AuditStream(), context.Background()
	for i := range 5 {
		if err := a.Add(ctx, []byte(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := a.Recent(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || string(recs[0]) != `{"n":4}` || string(recs[2]) != `{"n":2}` {
		t.Errorf("recent = %q", recs)
	}
}
