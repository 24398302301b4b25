package convo

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state/ratelimit"
)

// slotChannel takes each reply's slot from the chat's own send pace the
// engine passes with it (one send an hour) and records when each may go, as a
// private Telegram chat's adapter does, without waiting for it.
type slotChannel struct {
	botgw.Channel
	mu    sync.Mutex
	slots []time.Time // zero: no pace on the send
}

func (c *slotChannel) Send(ctx context.Context, m botgw.Outbound) error {
	var at time.Time
	if p := m.Pace; p != nil {
		at = ratelimit.Limit{Every: time.Hour, Burst: 1}.Take(p, time.Now())
	}
	c.mu.Lock()
	c.slots = append(c.slots, at)
	c.mu.Unlock()
	return c.Channel.Send(ctx, m)
}

func (c *slotChannel) taken() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.slots...)
}

// A chat's own send pace outlives the lease: the turn after the chat went
// idle (and its lease was given up) starts from the pace the last turn's
// sends left, kept with the chat's state, so a reply never goes before its
// limit allows.
func TestSendPaceIsKeptAcrossLeases(t *testing.T) {
	st := openStore(t, false, fastStore)
	ch := &slotChannel{}
	r := newRig(t, st, fake.New(), Config{}, sendThrough(func(in botgw.Channel) botgw.Channel {
		ch.Channel = in
		return ch
	}))
	r.say(t, testChat, "m1", "first")
	r.ch.Wait(t, 1, 5*time.Second)
	// Take the idle chat's lease and give it back: the next turn begins on
	// what the store kept, not on the last worker's memory.
	wait.Eventually(t, "the chat's lease to be free", func() bool {
		snap, err := st.Begin(context.Background(), testChat, "")
		if errors.Is(err, botgw.ErrBusy) {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Release(context.Background(), testChat, snap.Lease); err != nil {
			t.Fatal(err)
		}
		return true
	})
	r.say(t, testChat, "m2", "second")
	r.ch.Wait(t, 2, 5*time.Second)
	slots := ch.taken()
	if len(slots) != 2 || slots[0].IsZero() || slots[1].IsZero() {
		t.Fatalf("slots %v, want two sends on the chat's own pace", slots)
	}
	if gap := slots[1].Sub(slots[0]); gap < time.Hour-time.Second {
		t.Errorf("the second reply's slot is %v after the first, want the hour the limit asks", gap)
	}
}
