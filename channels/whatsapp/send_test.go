package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

func reply(chat, text string) botgw.Outbound {
	return botgw.Outbound{Chat: key(chat), ID: "out-1", Text: text}
}

func TestSendToGroup(t *testing.T) {
	a, f, _, _ := connected(t, Config{})
	if err := a.Send(context.Background(), reply(group.String(), "hi all")); err != nil {
		t.Fatalf("Send: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sent) != 1 || f.sent[0].to != group {
		t.Errorf("sent %+v, want one message to %s", f.sent, group)
	}
}

func TestSendRetries(t *testing.T) {
	timeout := whatsmeow.ErrMessageTimedOut
	forbidden := fmt.Errorf("failed to get group members: %w", whatsmeow.ErrIQForbidden)
	tests := []struct {
		name      string
		errs      []error
		wantErr   bool
		permanent bool
		sends     int // attempts made
	}{
		{"transient failure then success", []error{timeout}, false, false, 2},
		{"keeps failing", []error{timeout, timeout, timeout}, true, false, 3},
		{"not in the group", []error{forbidden}, true, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, f, _, _ := connected(t, Config{})
			f.sendErr = tt.errs
			err := a.Send(context.Background(), reply(group.String(), "hello"))
			var pe *botgw.PlatformError
			switch {
			case !tt.wantErr && err != nil:
				t.Fatalf("Send: %v", err)
			case tt.wantErr && !errors.As(err, &pe):
				t.Fatalf("Send = %v, want a *botgw.PlatformError", err)
			case tt.wantErr && (pe.Permanent != tt.permanent || pe.Channel != "whatsapp"):
				t.Errorf("PlatformError %+v, want Permanent=%v", pe, tt.permanent)
			}
			sends := 0
			for len(f.calls) > 0 {
				if <-f.calls == "send" {
					sends++
				}
			}
			if sends != tt.sends {
				t.Errorf("%d send attempts, want %d", sends, tt.sends)
			}
		})
	}
}

func TestSendWithoutSession(t *testing.T) {
	f := newFakeClient()
	a, _ := testAdapter(Config{}, nil, openFake(f))
	err := a.Send(context.Background(), reply("447700900123@s.whatsapp.net", "hi"))
	var pe *botgw.PlatformError
	if !errors.As(err, &pe) || pe.Permanent {
		t.Fatalf("Send without a connection = %v, want a retryable PlatformError", err)
	}
	for _, bad := range []botgw.ChatKey{
		{Channel: "telegram", ID: "123"},
		{Channel: "whatsapp", ID: "447700900123.0:12@s.whatsapp.net"},
		{Channel: "whatsapp", ID: "status@broadcast"},
	} {
		err := a.Send(context.Background(), botgw.Outbound{Chat: bad, ID: "x", Text: "hi"})
		if !errors.As(err, &pe) || !pe.Permanent {
			t.Errorf("Send to %s = %v, want a permanent PlatformError", bad, err)
		}
	}
	if len(f.sentTexts()) != 0 {
		t.Error("sent without a session")
	}
}

func TestTypingMarksReadAndComposesUntilStopped(t *testing.T) {
	a, f, _, _ := connected(t, Config{})
	in, ok, _ := a.normalize(context.Background(), f, inGroup("G2", alicePN, mentioning("@447700900999 hi", botPN.String())))
	if !ok {
		t.Fatal("test message ignored")
	}
	stop := a.StartTyping(context.Background(), in)
	f.waitCall(t, "read")
	f.waitCall(t, "composing")
	f.waitCall(t, "composing") // renewed while the turn runs
	stop()
	f.waitCall(t, "paused")
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.reads[0]
	if r.id != "G2" || r.chat != group || r.sender != alicePN || !r.ts.Equal(sentAt) {
		t.Errorf("read receipt %+v, want message G2 by %s in %s at %v", r, alicePN, group, sentAt)
	}
	if last := f.presences[len(f.presences)-1]; last != types.ChatPresencePaused {
		t.Errorf("last presence %q, want paused", last)
	}
}

// Without a linked session there is nobody to show "typing…" as: the
// signal is skipped, nothing reaches WhatsApp, and stop is safe to call
// (twice, too). Once the session is up, the same call composes and its
// stop pauses, once: the call made without a session left nothing behind.
func TestTypingWithoutSessionIsANoop(t *testing.T) {
	f := newFakeClient()
	a, _ := testAdapter(Config{}, nil, openFake(f))
	in := botgw.Inbound{Chat: key("447700900123@s.whatsapp.net")}
	stop := a.StartTyping(context.Background(), in)
	stop()
	stop()
	if n := len(f.calls); n != 0 {
		t.Fatalf("the client got %d calls without a session, want none", n)
	}
	listen(t, a, (&channeltest.Store{}).Deliver)
	f.waitCall(t, "connect")
	f.emit(t, &events.Connected{})
	waitState(t, a, StateConnected)
	stop = a.StartTyping(context.Background(), in)
	f.waitCall(t, "composing")
	stop()
	f.waitCall(t, "paused")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.presences[0] != types.ChatPresenceComposing || slices.Index(f.presences, types.ChatPresencePaused) != len(f.presences)-1 {
		t.Errorf("presences %q, want composing first and one pause at the end (none from the call without a session)", f.presences)
	}
}
