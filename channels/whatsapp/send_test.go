package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/types"

	"github.com/botgw/botgw"
)

func reply(chat, text string) botgw.Outbound {
	return botgw.Outbound{Chat: key(chat), ID: "out-1", Text: text}
}

func TestSendConvertsAndSplitsInOrder(t *testing.T) {
	a, f, _, _ := connected(t, Config{})
	var paras []string
	for i := range 30 {
		paras = append(paras, fmt.Sprintf("**Stop %d**: %s", i, strings.Repeat("walk on ", 40)))
	}
	if err := a.Send(context.Background(), reply("447700900123@s.whatsapp.net", strings.Join(paras, "\n\n"))); err != nil {
		t.Fatalf("Send: %v", err)
	}
	sent := f.sentTexts()
	if len(sent) < 3 {
		t.Fatalf("sent %d messages, want the long reply split", len(sent))
	}
	joined := strings.Join(sent, "")
	for i := range 30 {
		if !strings.Contains(joined, fmt.Sprintf("*Stop %d*:", i)) {
			t.Fatalf("stop %d missing or not bold in %q", i, joined[:80])
		}
		if i > 0 && strings.Index(joined, fmt.Sprintf("*Stop %d*", i)) < strings.Index(joined, fmt.Sprintf("*Stop %d*", i-1)) {
			t.Fatalf("stop %d sent before stop %d", i, i-1)
		}
	}
	for _, s := range sent {
		if n := utf8.RuneCountInString(s); n > partLimit {
			t.Errorf("part of %d runes, want at most %d", n, partLimit)
		}
		if strings.Contains(s, "**") {
			t.Errorf("Markdown bold left in %q", s[:40])
		}
	}
	f.mu.Lock()
	to := f.sent[0].to
	f.mu.Unlock()
	if to != alicePN {
		t.Errorf("sent to %s, want %s", to, alicePN)
	}
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

func TestTypingWithoutSessionIsANoop(t *testing.T) {
	a, _ := testAdapter(Config{}, nil, openFake(newFakeClient()))
	stop := a.StartTyping(context.Background(), botgw.Inbound{Chat: key("447700900123@s.whatsapp.net")})
	stop()
}

// TestRetriedSendResumesAfterTheSentParts: part 2 of a long reply fails
// past its retries; when the engine retries the reply, part 1 is not sent
// a second time.
func TestRetriedSendResumesAfterTheSentParts(t *testing.T) {
	a, f, _, _ := connected(t, Config{})
	var paras []string
	for i := range 30 {
		paras = append(paras, fmt.Sprintf("Stop %d: %s", i, strings.Repeat("walk on ", 40)))
	}
	m := reply("447700900123@s.whatsapp.net", strings.Join(paras, "\n\n"))
	want := parts(m.Text)
	if len(want) < 3 {
		t.Fatalf("reply split into %d parts, want at least 3", len(want))
	}
	timeout := whatsmeow.ErrMessageTimedOut
	f.mu.Lock()
	f.sendErr = []error{nil, timeout, timeout, timeout}
	f.mu.Unlock()
	if err := a.Send(context.Background(), m); err == nil {
		t.Fatal("Send succeeded while part 2 kept failing")
	}
	if err := a.Send(context.Background(), m); err != nil {
		t.Fatalf("retried Send: %v", err)
	}
	if got := f.sentTexts(); !slices.Equal(got, want) {
		t.Errorf("WhatsApp got %d messages, want each of the %d parts once, in order", len(got), len(want))
	}
}
