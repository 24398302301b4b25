package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

// replica is one gateway replica's adapter on the shared Redis sh and the
// clock, connected through its own fake client (as the lease holder).
type replica struct {
	a       *Adapter
	f       *fakeClient
	checked chan struct{} // a wait began (a held send looking again)
}

func newReplica(t *testing.T, sh *shared, clock *fakeClock) *replica {
	t.Helper()
	f := newFakeClient()
	a, _ := testAdapter(Config{}, nil, openFake(f))
	r := &replica{a: a, f: f, checked: make(chan struct{}, 1000)}
	a.shared, a.clock = sh, clock.Now
	a.wait = func(ctx context.Context, d time.Duration) bool {
		select {
		case r.checked <- struct{}{}:
		default:
		}
		return sleep(ctx, d)
	}
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
	return r
}

// sendAsync sends m in the background; the result arrives on the channel.
func (r *replica) sendAsync(m botgw.Outbound) <-chan error {
	done := make(chan error, 1)
	go func() { done <- r.a.Send(context.Background(), m) }()
	return done
}

// A 463 (reach-out timelock) holds that contact; once three contacts got
// one it holds the whole number on every replica: both show the hold and its end, neither sends anything while it
// lasts — the refused reply and another replica's reply wait — and when it
// ends both go, once each.
func TestReachOutTimelockHoldsEveryReplica(t *testing.T) {
	sh, clock := testShared(), &fakeClock{now: sentAt}
	r1, r2 := newReplica(t, sh, clock), newReplica(t, sh, clock)
	timelock := fmt.Errorf("%w %d", whatsmeow.ErrServerReturnedError, 463)
	r1.f.sendErr = []error{timelock, timelock, timelock}
	for i, chat := range []string{"447700900301@s.whatsapp.net", "447700900302@s.whatsapp.net"} {
		if err := r1.a.Send(context.Background(), reply(chat, "hello")); err == nil {
			t.Fatalf("contact %d: a 463 sent", i+1)
		}
		if s := r2.a.Status().(State); s.Hold != nil {
			t.Fatalf("number held after a 463 from %d contact(s): %+v; one contact's 463 holds that contact only", i+1, s.Hold)
		}
	}
	err := r1.a.Send(context.Background(), reply(alicePN.String(), "first"))
	var pe *botgw.PlatformError
	if !errors.As(err, &pe) || pe.Permanent {
		t.Fatalf("Send = %v, want a retryable PlatformError: the reply must wait, not be dropped", err)
	}
	end := sentAt.Add(defaultTiming.reachOutHold)
	for i, r := range []*replica{r1, r2} {
		s := r.a.Status().(State)
		if s.Hold == nil || s.Hold.Code != 463 || !s.Hold.Until.Equal(end) {
			t.Fatalf("replica %d shows hold %+v, want 463 until %v", i+1, s.Hold, end)
		}
	}
	retried := r1.sendAsync(reply(alicePN.String(), "first")) // the engine's retry
	other := r2.sendAsync(reply(group.String(), "second"))
	for range 20 {
		<-r1.checked
		<-r2.checked
	}
	if n1, n2 := len(r1.f.attemptsOf()), len(r2.f.attemptsOf()); n1 != 3 || n2 != 0 {
		t.Fatalf("send attempts %d and %d during the hold, want only the refused one", n1, n2)
	}
	clock.advance(defaultTiming.reachOutHold)
	if err := <-retried; err != nil {
		t.Errorf("held reply after the hold: %v", err)
	}
	if err := <-other; err != nil {
		t.Errorf("other replica's reply after the hold: %v", err)
	}
	if s1, s2 := r1.f.sentTexts(), r2.f.sentTexts(); len(s1) != 1 || s1[0] != "first" || len(s2) != 1 || s2[0] != "second" {
		t.Errorf("sent %q and %q, want each reply once", s1, s2)
	}
	if s := r2.a.Status().(State); s.Hold != nil {
		t.Errorf("hold %+v still shown after its end", s.Hold)
	}
}

// One 403 fails that reply alone (a player who blocked the number); the
// third within the window holds the number: the account is restricted.
func TestRepeatedForbiddenHoldsTheNumber(t *testing.T) {
	r := newReplica(t, testShared(), &fakeClock{now: sentAt})
	forbidden := fmt.Errorf("%w %d", whatsmeow.ErrServerReturnedError, 403)
	r.f.sendErr = []error{forbidden, forbidden, forbidden}
	for i := range 2 {
		err := r.a.Send(context.Background(), reply(alicePN.String(), fmt.Sprint("m", i)))
		var pe *botgw.PlatformError
		if !errors.As(err, &pe) || !pe.Permanent {
			t.Fatalf("403 #%d: %v, want that reply to fail for good", i+1, err)
		}
	}
	err := r.a.Send(context.Background(), reply(alicePN.String(), "m2"))
	var pe *botgw.PlatformError
	if !errors.As(err, &pe) || pe.Permanent {
		t.Fatalf("third 403: %v, want the reply kept for after the hold", err)
	}
	if s := r.a.Status().(State); s.Hold == nil || s.Hold.Code != 403 {
		t.Errorf("hold %+v, want the number held after three 403s", s.Hold)
	}
}

// An operator lifts the hold from any replica: the waiting send goes.
func TestOperatorLiftsTheHold(t *testing.T) {
	sh, clock := testShared(), &fakeClock{now: sentAt}
	r1, r2 := newReplica(t, sh, clock), newReplica(t, sh, clock)
	r1.f.sendErr = []error{whatsmeow.ErrIQRateOverLimit}
	_ = r1.a.Send(context.Background(), reply(alicePN.String(), "first"))
	done := r1.sendAsync(reply(alicePN.String(), "first"))
	<-r1.checked
	if err := r2.a.Actions()["lift-hold"](context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("send after the operator lifted the hold: %v", err)
	}
}
