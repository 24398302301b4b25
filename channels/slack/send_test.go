package slack

import (
	"errors"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

var threadChat = botgw.ChatKey{Channel: "slack", ID: "C0LAN2Q65/1700000100.000200"}

func TestSendWaitsOutRateLimit(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	f.RateLimit(1, "1")
	start := time.Now()
	if err := ch.Send(t.Context(), botgw.Outbound{Chat: threadChat, ID: "r1", Text: "hello"}); err != nil {
		t.Fatalf("send after a rate limit: %v", err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %v, before Retry-After (1s)", waited)
	}
	if n := len(f.CallsTo("chat.postMessage")); n != 2 {
		t.Errorf("%d posts, want the refused one and the retry", n)
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
