package whatsapp

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/state"
)

// virtualClock is a clock whose waits pass at once, moving it on: minutes
// of back-off cost the test nothing, and every wait is recorded.
type virtualClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
	start chan struct{} // when set, waits begin once it is closed
}

func (c *virtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *virtualClock) wait(ctx context.Context, d time.Duration) bool {
	if c.start != nil {
		select {
		case <-c.start:
		case <-ctx.Done():
		}
	}
	if ctx.Err() != nil {
		return false
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	return true
}

func (c *virtualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *virtualClock) lastWait() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waits[len(c.waits)-1]
}

// onVirtualTime puts a on clock with the production back-off.
func onVirtualTime(a *Adapter, clock *virtualClock) {
	a.clock, a.wait = clock.Now, clock.wait
	a.tm.backoffMin, a.tm.backoffMax, a.tm.healthyAfter = defaultTiming.backoffMin, defaultTiming.backoffMax, defaultTiming.healthyAfter
	a.tm.stormWindow, a.tm.stormCount = defaultTiming.stormWindow, defaultTiming.stormCount
}

// refusingStore is an ingress in front of a real store that refuses every
// write until a time (its probe fails too), and one message always (a
// poison input the store cannot take while it takes the others).
type refusingStore struct {
	st     *state.Store
	clock  *virtualClock
	until  time.Time
	poison string
}

var errRefused = errors.New("OOM command not allowed when used memory > 'maxmemory'")

func (s *refusingStore) writable(ctx context.Context) error {
	if s.clock.Now().Before(s.until) {
		return errRefused
	}
	return s.st.Writable(ctx)
}

func (s *refusingStore) deliver(ctx context.Context, in botgw.Inbound) error {
	if err := s.writable(ctx); err != nil {
		return err
	}
	if in.ID == s.poison {
		return errors.New("ERR Error running script: field cannot be stored")
	}
	return s.st.Append(ctx, in)
}

// A store that refuses every write for 5 minutes: the adapter probes it
// with a growing back-off instead of reconnecting into the outage, then
// reconnects a handful of times at most; every storable message is stored
// once WhatsApp redelivers it, and the message the store never takes is a
// dead letter (acknowledged, so it is not redelivered forever).
func TestStoreRefusingWritesForFiveMinutes(t *testing.T) {
	ctx := context.Background()
	st, err := state.Open(ctx, state.Config{}, state.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clock := &virtualClock{now: sentAt, start: make(chan struct{})}
	store := &refusingStore{st: st, clock: clock, until: sentAt.Add(5 * time.Minute), poison: "POISON"}
	f := newFakeClient()
	a, _ := testAdapter(Config{Backlog: BacklogAnswer}, nil, openFake(f))
	onVirtualTime(a, clock)
	a.probe, a.dead = store.writable, st
	listen(t, a, store.deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	var unacked []*events.Message
	for _, id := range []string{"M1", "M2", "POISON"} {
		m := dm(id, alicePN, text("message "+id))
		if f.emit(t, m) {
			t.Fatalf("%s acknowledged while the store refused it", id)
		}
		unacked = append(unacked, m)
	}
	close(clock.start) // the outage's 5 minutes pass now
	connects := 1
	for len(unacked) > 0 { // WhatsApp: each new connection redelivers what was not acknowledged
		f.waitCall(t, "connect")
		if connects++; connects > 5 {
			t.Fatalf("%d connects: a reconnect storm", connects)
		}
		if clock.Now().Before(store.until) {
			t.Fatalf("reconnected at %v, into the outage", clock.Now().Sub(sentAt))
		}
		f.emit(t, &events.Connected{})
		keep := unacked[:0]
		for _, m := range unacked {
			if !f.emit(t, m) {
				keep = append(keep, m)
			}
		}
		unacked = keep
	}
	snap, err := st.Begin(ctx, key(alicePN.String()), "")
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, in := range snap.Pending {
		stored = append(stored, in.ID)
	}
	if strings.Join(stored, " ") != "M1 M2" {
		t.Errorf("stored %v, want M1 M2", stored)
	}
	dls, _, err := st.ListDeadLetters(ctx, "", 10)
	if err != nil || len(dls) != 1 || dls[0].Input == nil || dls[0].Input.ID != "POISON" {
		t.Fatalf("dead letters %+v (%v), want the poison message kept whole", dls, err)
	}
	c := a.EventCounts()
	if c["reconnect"] > 4 || c["input_dead_letter"] != 1 {
		t.Errorf("counts %v: want at most a handful of reconnects, one dead letter", c)
	}
}

// A server that takes the login and drops the stream at once is redialled
// ever more slowly (a login alone does not reset the back-off), the alarm
// goes off, and a connection that stays up for healthyAfter resets it.
func TestDroppedAfterLoginBacksOffUntilHealthy(t *testing.T) {
	clock := &virtualClock{now: sentAt}
	f := newFakeClient()
	a, logs := testAdapter(Config{}, nil, openFake(f))
	onVirtualTime(a, clock)
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	for range 7 {
		f.emit(t, &events.Connected{})
		f.drop()
		f.emit(t, &events.Disconnected{})
		f.waitCall(t, "connect")
	}
	if d := clock.lastWait(); d < time.Minute {
		t.Errorf("7th reconnect after %v, want the back-off grown past a minute", d)
	}
	if a.EventCounts()["reconnect_alarm"] != 1 || !strings.Contains(logs.String(), "level=ERROR msg=\"whatsapp reconnecting too often") {
		t.Errorf("no reconnect alarm: counts %v", a.EventCounts())
	}
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
	clock.advance(defaultTiming.healthyAfter)
	f.drop()
	f.emit(t, &events.Disconnected{})
	f.waitCall(t, "connect")
	if d := clock.lastWait(); d > defaultTiming.backoffMin {
		t.Errorf("reconnect after a healthy connection waited %v, want the back-off reset (≤ %v)", d, defaultTiming.backoffMin)
	}
}
