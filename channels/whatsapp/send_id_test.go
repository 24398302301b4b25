package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mau.fi/whatsmeow"

	"github.com/botgw/botgw"

	"github.com/botgw/botgw/channels/markup"
)

// attemptsOf returns the SendMessage calls the fake saw, in order.
func (f *fakeClient) attemptsOf() []sentMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sentMessage(nil), f.attempts...)
}

var waID = regexp.MustCompile(`^3EB0[0-9A-F]{18}$`)

// A part whose ack was lost is retried, by the adapter and then by the
// engine, under the id of its first attempt, so WhatsApp drops the copy
// it already has; each part has its own id; another replica derives the
// same ids from the same outbox entry.
func TestSendReusesOneMessageIDPerPart(t *testing.T) {
	a, f, _, _ := connected(t, Config{})
	long := strings.Repeat("word ", markup.WhatsApp.Limit/5) + "\n\n" + "the second part"
	m := botgw.Outbound{Chat: key(alicePN.String()), ID: "re-M1", Text: long}
	timeout := whatsmeow.ErrMessageTimedOut
	f.sendErr = []error{timeout, timeout, timeout} // every adapter attempt at part 1 times out
	if err := a.Send(context.Background(), m); err == nil {
		t.Fatal("Send succeeded with every attempt timing out")
	}
	f.sendErr = []error{nil, fmt.Errorf("websocket disconnected before info query returned response")}
	if err := a.Send(context.Background(), m); err != nil { // the engine's retry
		t.Fatalf("retried Send: %v", err)
	}
	at := f.attemptsOf()
	if len(at) != 6 {
		t.Fatalf("%d attempts, want 3 failed + 1 taken for part 1 and 2 for part 2", len(at))
	}
	first, second := at[0].id, at[4].id
	if !waID.MatchString(string(first)) || !waID.MatchString(string(second)) {
		t.Fatalf("ids %q, %q are not in WhatsApp's form 3EB0 + 18 hex digits", first, second)
	}
	for i, x := range at {
		want := first
		if i >= 4 {
			want = second
		}
		if x.id != want {
			t.Errorf("attempt %d used id %q, want %q", i+1, x.id, want)
		}
	}
	if first == second {
		t.Error("both parts used one id: WhatsApp would drop the second part")
	}
	if got := messageID(m, 0); got != first {
		t.Errorf("another replica would send part 1 as %q, not %q", got, first)
	}
	other := m
	other.Chat = key(group.String())
	if messageID(other, 0) == first {
		t.Error("the same outbox id in another chat got the same message id")
	}
}

// What WhatsApp refused for this message alone (479 follows a message the
// recipient could not decrypt), or a number that is not on WhatsApp, is
// sent once and reported as permanent (a dead letter), not retried.
func TestSendRefusalIsPermanentAndNotResent(t *testing.T) {
	for name, err := range map[string]error{
		"server returned error": fmt.Errorf("%w %d", whatsmeow.ErrServerReturnedError, 479),
		"no LID found":          errors.New("no LID found for 447700900000@s.whatsapp.net from server"),
	} {
		t.Run(name, func(t *testing.T) {
			a, f, _, _ := connected(t, Config{})
			f.sendErr = []error{err}
			got := a.Send(context.Background(), reply(alicePN.String(), "hello"))
			var pe *botgw.PlatformError
			if !errors.As(got, &pe) || !pe.Permanent {
				t.Fatalf("Send = %v, want a permanent PlatformError", got)
			}
			if n := len(f.attemptsOf()); n != 1 {
				t.Errorf("%d send attempts, want 1", n)
			}
		})
	}
}

// A rate-over-limit holds the whole number: the reply fails retryably, and
// every send from the number — to any chat — waits for the hold's end
// (nothing attempted meanwhile, nothing lost), then goes.
func TestSendRateOverLimitHoldsTheNumber(t *testing.T) {
	a, f, _, _ := connected(t, Config{})
	clock := &fakeClock{now: time.Date(2026, 11, 20, 18, 0, 0, 0, time.UTC)}
	a.clock = clock.Now
	checked := make(chan struct{}, 1000)
	a.wait = func(ctx context.Context, d time.Duration) bool {
		select {
		case checked <- struct{}{}:
		default:
		}
		return sleep(ctx, d)
	}
	f.sendErr = []error{fmt.Errorf("failed to get user info for x to fill LID cache: %w", whatsmeow.ErrIQRateOverLimit)}
	err := a.Send(context.Background(), reply(alicePN.String(), "hello"))
	var pe *botgw.PlatformError
	if !errors.As(err, &pe) || pe.Permanent || pe.RetryAfter <= 0 {
		t.Fatalf("Send = %#v, want a retryable PlatformError", err)
	}
	h, _ := a.currentHold(context.Background())
	if h.Code != 429 || !h.Until.Equal(clock.Now().Add(time.Hour)) {
		t.Fatalf("hold %+v, want 429 until an hour from now", h)
	}
	clock.advance(20 * time.Minute)
	done := make(chan error, 1)
	go func() { done <- a.Send(context.Background(), reply(group.String(), "hi all")) }()
	for range 50 { // the held send looks at the hold again and again, sending nothing
		<-checked
	}
	if n := len(f.attemptsOf()); n != 1 {
		t.Fatalf("%d send attempts, want 1: nothing sent during the hold", n)
	}
	clock.advance(41 * time.Minute)
	if err := <-done; err != nil {
		t.Fatalf("Send after the hold: %v", err)
	}
	if got := f.sentTexts(); len(got) != 1 || got[0] != "hi all" {
		t.Errorf("sent %q, want the held message once", got)
	}
}
