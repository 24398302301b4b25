package telegram

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

// longReply is a ~9,000-character Markdown reply with a Go code block.
func longReply() (text, code string) {
	var b strings.Builder
	for i := range 4 {
		fmt.Fprintf(&b, "Stop %d: walk to the **old spa** and look for the _bronze plaque_ near the door. ", i)
		b.WriteString(strings.Repeat("The clue mentions the year the baths opened & the architect. ", 3) + "\n\n")
	}
	code = "```go\n" + strings.Repeat("if visited[place] < 3 && score > 0 {\n\tscore += bonus(place)\n}\n", 20) + "```\n\n"
	b.WriteString(code)
	for i := 4; b.Len() < 9000; i++ {
		fmt.Fprintf(&b, "Stop %d: ask at the `visitor centre` for the next riddle; see [the map](https://example.com/map?stop=%d). ", i, i)
		b.WriteString(strings.Repeat("Keep your tickets, they are worth points later on. ", 3) + "\n\n")
	}
	return b.String(), code
}

func TestSendWaitsOutRateLimit(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	ta.api.Script("sendMessage", channeltest.Reply{Status: 429, Body: `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}`})
	if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "123456789"}, ID: "r1", Text: "hello"}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if n := len(ta.api.CallsTo("sendMessage")); n != 2 {
		t.Errorf("%d sendMessage calls, want 2 (429, then success)", n)
	}
	if len(ta.slept) != 1 || ta.slept[0] != 7*time.Second {
		t.Errorf("waited %v, want retry_after 7s", ta.slept)
	}
}

func TestSendGivesLongRateLimitsBackToTheEngine(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	ta.api.Script("sendMessage", channeltest.Reply{Status: 429, Body: `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 120","parameters":{"retry_after":120}}`})
	err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "123456789"}, ID: "r1", Text: "hello"})
	var pe *botgw.PlatformError
	if !errors.As(err, &pe) || pe.Status != 429 || pe.RetryAfter != 2*time.Minute || pe.Permanent {
		t.Fatalf("err = %#v, want a retryable 429 PlatformError with RetryAfter 2m", err)
	}
}

func TestSendResendsPlainTextWhenEntitiesAreRejected(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	ta.api.Script("sendMessage", channeltest.Reply{Status: 400, Body: `{"ok":false,"error_code":400,"description":"Bad Request: can't parse entities: Can't find end tag corresponding to start tag \"b\""}`})
	text := "Go to the **theatre** now"
	if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "123456789"}, ID: "r1", Text: text}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	sent := ta.api.CallsTo("sendMessage")
	if len(sent) != 2 {
		t.Fatalf("%d sendMessage calls, want 2", len(sent))
	}
	if p := sent[1].Params; p["text"] != "Go to the theatre now" || p["parse_mode"] != "" {
		t.Errorf("resend params = %v, want the reply as plain text", p)
	}
}

func TestSendErrors(t *testing.T) {
	tests := []struct {
		name      string
		chat      string
		answer    channeltest.Reply
		status    int
		permanent bool
	}{
		{"chat not found", "123456789", channeltest.Reply{Status: 400, Body: `{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`}, 400, true},
		{"group migrated", "-4012345678", channeltest.Reply{Status: 400, Body: `{"ok":false,"error_code":400,"description":"Bad Request: group chat was upgraded to a supergroup chat","parameters":{"migrate_to_chat_id":-1001234567890}}`}, 400, true},
		{"not a telegram chat id", "abc", channeltest.Reply{}, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ta := newTestAdapter(t, Config{}, "")
			ta.api.Script("sendMessage", tc.answer)
			err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: tc.chat}, ID: "r1", Text: "hi"})
			var pe *botgw.PlatformError
			if !errors.As(err, &pe) || pe.Status != tc.status || pe.Permanent != tc.permanent || pe.Channel != Name {
				t.Errorf("err = %#v, want PlatformError status %d permanent %v", err, tc.status, tc.permanent)
			}
		})
	}
}

// Only the first part of a group reply quotes the message it answers.
func TestSendRepliesWithFirstPartOnly(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	text, _ := longReply()
	meta := map[string]string{metaMessageID: "2202", metaChatType: "supergroup"}
	if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "-1001234567890"}, ID: "r1", Text: text, Meta: meta}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	for i, c := range ta.api.CallsTo("sendMessage") {
		if quoted := c.Params["reply_parameters"] != ""; quoted != (i == 0) {
			t.Errorf("part %d: reply_parameters %q", i, c.Params["reply_parameters"])
		}
	}
}

func TestLimiter(t *testing.T) {
	l := newLimiter(1, 3)
	now := time.Unix(1_700_000_000, 0)
	var waits []time.Duration
	for range 5 {
		waits = append(waits, l.reserve(42, now))
	}
	want := []time.Duration{0, 0, 0, time.Second, 2 * time.Second}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("waits %v, want %v", waits, want)
		}
	}
	if d := l.reserve(7, now); d != 0 {
		t.Errorf("another chat waits %v, want 0", d)
	}
	if d := l.reserve(42, now.Add(10*time.Second)); d != 0 {
		t.Errorf("after a pause the chat waits %v, want 0", d)
	}
}

func TestSendIsPacedPerChat(t *testing.T) {
	ta := newTestAdapter(t, Config{RatePerSecond: 0.5, Burst: 1}, "")
	chat := botgw.ChatKey{Channel: Name, ID: "123456789"}
	for i := range 2 {
		if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: chat, ID: fmt.Sprint(i), Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(ta.slept) != 1 || ta.slept[0] < time.Second {
		t.Errorf("waits %v, want one wait of about 2s before the second message", ta.slept)
	}
}
