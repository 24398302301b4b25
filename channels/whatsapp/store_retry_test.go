package whatsapp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
)

// flaky is a botgw.Deliver failing its first n calls, then storing.
type flaky struct {
	mu    sync.Mutex
	fails int
	calls int
	ins   []botgw.Inbound
}

var errRedisDown = errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")

func (d *flaky) deliver(_ context.Context, in botgw.Inbound) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls++
	if d.calls <= d.fails {
		return errRedisDown
	}
	d.ins = append(d.ins, in)
	return nil
}

func (d *flaky) stored() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.ins)
}

// redisLease is the Redis lease seen from a replica while Redis may be
// down: renewals fail then, and each one is reported on renews.
type redisLease struct {
	*memLease
	down   atomic.Bool
	renews chan bool // whether Redis answered
}

func (l *redisLease) Renew(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	down := l.down.Load()
	select {
	case l.renews <- !down:
	default:
	}
	if down {
		return false, errRedisDown
	}
	return l.memLease.Renew(ctx, name, owner, ttl)
}

// A store failing once (a Redis blip) is retried inside the handler: the
// message is acked and stored, and the connection is left alone.
func TestStoreRetriedBeforeWithholdingAck(t *testing.T) {
	d := &flaky{fails: 1}
	f := newFakeClient()
	a, _ := testAdapter(Config{}, nil, openFake(f))
	listen(t, a, d.deliver)
	f.waitCall(t, "connect")
	if !f.emit(t, dm("M1", alicePN, text("hello"))) {
		t.Fatal("handler withheld the ack although the retry stored the message")
	}
	if d.stored() != 1 || a.EventCounts()["store_retry"] != 1 {
		t.Fatalf("stored %d, counts %v; want stored on the second try", d.stored(), a.EventCounts())
	}
	if a.EventCounts()["forced_reconnect"] != 0 || f.connectCount() != 1 {
		t.Errorf("reconnected (%d connects) for a message that was stored", f.connectCount())
	}
}

// A message that could not be stored at all stays unacknowledged; once
// Redis answers again the adapter reconnects (once), so WhatsApp
// redelivers it on the open connection instead of at some later outage.
func TestUnstoredMessageForcesReconnectWhenRedisIsBack(t *testing.T) {
	lease := &redisLease{memLease: newMemLease(), renews: make(chan bool, 100)}
	d := &flaky{fails: 1 << 30}
	f := newFakeClient()
	a, _ := testAdapter(Config{}, lease, openFake(f))
	listen(t, a, d.deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
	lease.down.Store(true)
	if f.emit(t, dm("M1", alicePN, text("hello"))) || f.emit(t, dm("M2", alicePN, text("anyone?"))) {
		t.Fatal("handler acked a message that was not stored")
	}
	for range 2 { // the adapter probes Redis, and does not reconnect into an outage
		if <-lease.renews {
			t.Fatal("probe saw Redis up while it was down")
		}
	}
	if f.connectCount() != 1 {
		t.Fatalf("%d connects while Redis was down, want 1", f.connectCount())
	}
	d.mu.Lock()
	d.fails = 0
	d.mu.Unlock()
	lease.down.Store(false)
	f.waitCall(t, "disconnect")
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
	// WhatsApp redelivers on the new connection.
	if !f.emit(t, dm("M1", alicePN, text("hello"))) || d.stored() != 1 {
		t.Fatal("redelivered message not stored")
	}
	c := a.EventCounts()
	if c["forced_reconnect"] != 1 || c["store_failed"] != 2 || f.connectCount() != 2 {
		t.Errorf("counts %v with %d connects; want one forced reconnect for two unstored messages", c, f.connectCount())
	}
}

// An undecryptable message is counted and logged without content, and
// whatsmeow's request to the phone is on.
func TestUndecryptableMessageCounted(t *testing.T) {
	a, f, logs, _ := connected(t, Config{})
	e := &events.UndecryptableMessage{Info: types.MessageInfo{
		MessageSource: types.MessageSource{Chat: aliceLID, Sender: aliceLID, SenderAlt: alicePN},
		ID:            "3A0F00", Timestamp: sentAt,
	}}
	if !f.emit(t, e) {
		t.Error("handler failed an undecryptable message")
	}
	if n := a.EventCounts()["undecryptable"]; n != 1 {
		t.Errorf("undecryptable count %d, want 1", n)
	}
	if !containsAll(logs.String(), "could not be decrypted", "3A0F00", alicePN.String()) {
		t.Errorf("not logged with its id and chat:\n%s", logs)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
