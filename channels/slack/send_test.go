package slack

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/botgw/botgw"
)

var threadChat = botgw.ChatKey{Channel: "slack", ID: "C0LAN2Q65/1700000100.000200"}

// longReply is n paragraphs of about 900 characters, each starting "Part i:".
func longReply(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "Part %d: %s\n\n", i+1, strings.Repeat("tour stop ", 90))
	}
	return b.String()
}

func TestSendSplitsLongRepliesInOrder(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	if err := ch.Send(t.Context(), botgw.Outbound{Chat: threadChat, ID: "r1", Text: longReply(10)}); err != nil {
		t.Fatal(err)
	}
	posts := f.Posts()
	if len(posts) < 3 {
		t.Fatalf("%d posts, want the 9,000-character reply in at least 3 parts", len(posts))
	}
	next := 1
	for i, p := range posts {
		text := p.Form.Get("text")
		if n := utf8.RuneCountInString(text); n > maxRunes {
			t.Errorf("part %d has %d characters", i, n)
		}
		if p.Form.Get("thread_ts") != "1700000100.000200" {
			t.Errorf("part %d not posted in the thread", i)
		}
		for strings.Contains(text, fmt.Sprintf("Part %d:", next)) {
			next++
		}
	}
	if next != 11 {
		t.Errorf("paragraphs arrived out of order or missing: next expected %d", next)
	}
}

func TestSendWaitsOutRateLimit(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	f.limits, f.retry = 1, "1"
	start := time.Now()
	if err := ch.Send(t.Context(), botgw.Outbound{Chat: threadChat, ID: "r1", Text: "hello"}); err != nil {
		t.Fatalf("send after a rate limit: %v", err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %v, before Retry-After (1s)", waited)
	}
	if n := len(f.Posts()); n != 2 {
		t.Errorf("%d posts, want the refused one and the retry", n)
	}
}

func TestSendErrors(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(f *fakeSlack)
		chat       botgw.ChatKey
		status     int
		permanent  bool
		retryAfter time.Duration
	}{
		{"unknown channel", func(f *fakeSlack) { f.errPosts[1] = "channel_not_found" }, threadChat, http.StatusOK, true, 0},
		{"server error", func(f *fakeSlack) { f.failPosts[1] = http.StatusServiceUnavailable }, threadChat, http.StatusServiceUnavailable, false, 0},
		{"long rate limit", func(f *fakeSlack) { f.limits, f.retry = 1, "120" }, threadChat, http.StatusTooManyRequests, false, 120 * time.Second},
		{"not a slack chat", func(*fakeSlack) {}, botgw.ChatKey{Channel: "telegram", ID: "42"}, 0, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeSlack(t)
			ch := newTestAdapter(t, f)
			tc.setup(f)
			err := ch.Send(t.Context(), botgw.Outbound{Chat: tc.chat, ID: "r1", Text: "hello"})
			pe, ok := errors.AsType[*botgw.PlatformError](err)
			if !ok {
				t.Fatalf("error %v is not a *botgw.PlatformError", err)
			}
			if pe.Status != tc.status || pe.Permanent != tc.permanent || pe.RetryAfter != tc.retryAfter {
				t.Errorf("got status %d permanent %v retry after %v, want %d %v %v",
					pe.Status, pe.Permanent, pe.RetryAfter, tc.status, tc.permanent, tc.retryAfter)
			}
		})
	}
}

func TestSendResumesAfterPostedParts(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	f.failPosts[2] = http.StatusBadGateway // the second part fails once
	reply := botgw.Outbound{Chat: threadChat, ID: "r1", Text: longReply(10)}
	if err := ch.Send(t.Context(), reply); err == nil {
		t.Fatal("send succeeded although part 2 failed")
	}
	if err := ch.Send(t.Context(), reply); err != nil {
		t.Fatal(err)
	}
	first := 0
	for _, p := range f.Posts() {
		if strings.Contains(p.Form.Get("text"), "Part 1:") {
			first++
		}
	}
	if first != 1 {
		t.Errorf("the first part was posted %d times, want once", first)
	}
}

// The failure says how many parts Slack took; another replica (a fresh
// adapter) retrying the reply with that count, as the outbox records it,
// posts only the rest.
func TestSendRetryOnAnotherReplicaResumesAfterRecordedParts(t *testing.T) {
	f := newFakeSlack(t)
	f.failPosts[2] = http.StatusBadGateway // the second part fails once
	reply := botgw.Outbound{Chat: threadChat, ID: "r1", Text: longReply(10)}
	err := newTestAdapter(t, f).Send(t.Context(), reply)
	pe, ok := errors.AsType[*botgw.PlatformError](err)
	if !ok || pe.Sent != 1 {
		t.Fatalf("send with part 2 failing = %v, want a PlatformError saying 1 part was taken", err)
	}
	reply.Sent = pe.Sent
	if err := newTestAdapter(t, f).Send(t.Context(), reply); err != nil {
		t.Fatal(err)
	}
	first := 0
	for _, p := range f.Posts() {
		if strings.Contains(p.Form.Get("text"), "Part 1:") {
			first++
		}
	}
	if first != 1 {
		t.Errorf("the first part was posted %d times, want once", first)
	}
}

func TestSendToDirectMessageHasNoThread(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	dm := botgw.ChatKey{Channel: "slack", ID: "D024BE91L"}
	if err := ch.Send(t.Context(), botgw.Outbound{Chat: dm, ID: "r1", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	p := f.Posts()[0].Form
	if p.Get("channel") != "D024BE91L" || p.Has("thread_ts") {
		t.Errorf("posted to %q with thread_ts %q, want the DM itself", p.Get("channel"), p.Get("thread_ts"))
	}
}

func TestSendKeepsLongCodeBlocksFenced(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	code := "```\n" + strings.Repeat("fmt.Println(\"x\")\n", 400) + "```\n" // 6,800 characters
	if err := ch.Send(t.Context(), botgw.Outbound{Chat: threadChat, ID: "r1", Text: code}); err != nil {
		t.Fatal(err)
	}
	posts := f.Posts()
	if len(posts) < 2 {
		t.Fatalf("%d posts, want the block split", len(posts))
	}
	for i, p := range posts {
		text := strings.TrimSpace(p.Form.Get("text"))
		if !strings.HasPrefix(text, "```") || !strings.HasSuffix(text, "```") || strings.Count(text, "```") != 2 {
			t.Errorf("part %d is not one whole code block: %q…%q", i, text[:10], text[len(text)-10:])
		}
	}
}
