package slack

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/ratelimit/ratelimittest"
)

var threadChat = botgw.ChatKey{Channel: "slack", ID: "C0LAN2Q65/1700000100.000200"}

// A 429 holds the channel back for Retry-After on every replica: the retry,
// and a later reply into another thread of the same channel, wait it out.
func TestSendWaitsOutRateLimit(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	clock := ratelimittest.ClockOf(ch.pacer)
	f.RateLimit(1, "30")
	start := clock.Now()
	if err := ch.Send(t.Context(), botgw.Outbound{Chat: threadChat, ID: "r1", Text: "hello"}); err != nil {
		t.Fatalf("send after a rate limit: %v", err)
	}
	if waited := clock.Now().Sub(start); waited < 30*time.Second {
		t.Errorf("retried after %v, before Retry-After (30s)", waited)
	}
	if n := len(f.CallsTo("chat.postMessage")); n != 2 {
		t.Errorf("%d posts, want the refused one and the retry", n)
	}
}

// Replies into one channel go at rate_per_channel_per_second after a short
// burst, however many threads they are in.
func TestSendIsPacedPerChannel(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	clock := ratelimittest.ClockOf(ch.pacer)
	start := clock.Now()
	for i := range 6 {
		chat := botgw.ChatKey{Channel: name, ID: fmt.Sprintf("C0123ABC/1700000000.00010%d", i)}
		if err := ch.Send(t.Context(), botgw.Outbound{Chat: chat, ID: fmt.Sprint("r", i), Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := clock.Now().Sub(start); got < 3*time.Second {
		t.Errorf("6 replies into one channel at 1/s (burst 3) took %v, want ≥ 3s", got)
	}
}

func TestSendToAnotherChannelsChatIsPermanent(t *testing.T) {
	ch := newTestAdapter(t, newFakeSlack(t))
	err := ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: "telegram", ID: "42"}, ID: "r1", Text: "hello"})
	if pe, ok := errors.AsType[*botgw.PlatformError](err); !ok || !pe.Permanent {
		t.Errorf("error %v, want a permanent *botgw.PlatformError", err)
	}
}

func TestSendToDirectMessageHasNoThread(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	dm := botgw.ChatKey{Channel: "slack", ID: "D024BE91L"}
	if err := ch.Send(t.Context(), botgw.Outbound{Chat: dm, ID: "r1", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	p := f.CallsTo("chat.postMessage")[0].Params
	if _, threaded := p["thread_ts"]; p["channel"] != "D024BE91L" || threaded {
		t.Errorf("posted to %q with thread_ts %q, want the DM itself", p["channel"], p["thread_ts"])
	}
}
