package telegram

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
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

func TestSendLongReplyInThreeValidParts(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	text, code := longReply()
	if n := len([]rune(text)); n < 9000 || n > 9300 {
		t.Fatalf("test reply has %d characters, want about 9,000", n)
	}
	if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "123456789"}, ID: "r1", Text: text}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	sent := ta.api.callsTo("sendMessage")
	if len(sent) != 3 {
		t.Fatalf("%d sendMessage calls, want 3", len(sent))
	}
	chunks := render(text)
	var src strings.Builder
	wantBlock, _ := toHTML(code, fence{})
	blocks := 0
	for i, c := range sent {
		p := c.params
		if p["text"] != chunks[i].html || p["parse_mode"] != "HTML" || p["chat_id"] != "123456789" {
			t.Errorf("part %d out of order or not HTML: %.80q", i, p["text"])
		}
		if n := utf16Len(p["text"]); n > maxMessage {
			t.Errorf("part %d has %d characters, over Telegram's %d", i, n, maxMessage)
		}
		checkTelegramHTML(t, p["text"])
		blocks += strings.Count(p["text"], strings.TrimSuffix(wantBlock, "\n"))
		src.WriteString(chunks[i].src)
	}
	if blocks != 1 {
		t.Errorf("code block intact in %d parts, want 1", blocks)
	}
	if src.String() != text {
		t.Error("the parts' Markdown does not concatenate to the reply")
	}
}

func TestRenderKeepsEveryPartValid(t *testing.T) {
	tests := map[string]string{
		"code block longer than a message": "Intro\n\n```sh\n" + strings.Repeat("echo \"<tag> & more\"\n", 600) + "```\n\nOutro",
		"escaping grows the text":          strings.Repeat("a<b>&c ", 2000),
		"emoji count twice in UTF-16":      strings.Repeat("🎭🎟️ ", 3000),
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			var src strings.Builder
			for _, c := range render(text) {
				if n := utf16Len(c.html); n > maxMessage {
					t.Errorf("part has %d characters, over %d", n, maxMessage)
				}
				if n := utf16Len(c.src); n > maxMessage {
					t.Errorf("plain-text fallback has %d characters, over %d", n, maxMessage)
				}
				checkTelegramHTML(t, c.html)
				src.WriteString(c.src)
			}
			if src.String() != text {
				t.Error("parts do not concatenate to the original")
			}
		})
	}
}

func TestSendWaitsOutRateLimit(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	ta.api.script("sendMessage", reply{429, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}`})
	if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "123456789"}, ID: "r1", Text: "hello"}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if n := len(ta.api.callsTo("sendMessage")); n != 2 {
		t.Errorf("%d sendMessage calls, want 2 (429, then success)", n)
	}
	if len(ta.slept) != 1 || ta.slept[0] != 7*time.Second {
		t.Errorf("waited %v, want retry_after 7s", ta.slept)
	}
}

func TestSendGivesLongRateLimitsBackToTheEngine(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	ta.api.script("sendMessage", reply{429, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 120","parameters":{"retry_after":120}}`})
	err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "123456789"}, ID: "r1", Text: "hello"})
	var pe *botgw.PlatformError
	if !errors.As(err, &pe) || pe.Status != 429 || pe.RetryAfter != 2*time.Minute || pe.Permanent {
		t.Fatalf("err = %#v, want a retryable 429 PlatformError with RetryAfter 2m", err)
	}
}

func TestSendResendsPlainTextWhenEntitiesAreRejected(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	ta.api.script("sendMessage", reply{400, `{"ok":false,"error_code":400,"description":"Bad Request: can't parse entities: Can't find end tag corresponding to start tag \"b\""}`})
	text := "Go to the **theatre** now"
	if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "123456789"}, ID: "r1", Text: text}); err != nil {
		t.Fatalf("Send: %v", err)
	}
	sent := ta.api.callsTo("sendMessage")
	if len(sent) != 2 {
		t.Fatalf("%d sendMessage calls, want 2", len(sent))
	}
	if p := sent[1].params; p["text"] != text || p["parse_mode"] != "" {
		t.Errorf("resend params = %v, want the Markdown as plain text", p)
	}
}

func TestSendErrors(t *testing.T) {
	tests := []struct {
		name      string
		chat      string
		answer    reply
		status    int
		permanent bool
	}{
		{"blocked by the user", "123456789", reply{403, `{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`}, 403, true},
		{"chat not found", "123456789", reply{400, `{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}`}, 400, true},
		{"group migrated", "-4012345678", reply{400, `{"ok":false,"error_code":400,"description":"Bad Request: group chat was upgraded to a supergroup chat","parameters":{"migrate_to_chat_id":-1001234567890}}`}, 400, true},
		{"server error", "123456789", reply{502, `{"ok":false,"error_code":502,"description":"Bad Gateway"}`}, 0, false},
		{"not a telegram chat id", "abc", reply{}, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ta := newTestAdapter(t, Config{}, "")
			ta.api.script("sendMessage", tc.answer)
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
	for i, c := range ta.api.callsTo("sendMessage") {
		if quoted := c.params["reply_parameters"] != ""; quoted != (i == 0) {
			t.Errorf("part %d: reply_parameters %q", i, c.params["reply_parameters"])
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

// When a later part fails, the engine's retry of the same reply sends only
// the parts Telegram did not take yet.
func TestSendRetryResumesAfterSentParts(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	text, _ := longReply()
	out := botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "123456789"}, ID: "r1", Text: text}
	ta.api.script("sendMessage", reply{200, `{"ok":true,"result":{"message_id":1,"date":1732270000,"chat":{"id":123456789,"type":"private"},"text":"x"}}`},
		reply{502, `{"ok":false,"error_code":502,"description":"Bad Gateway"}`})
	if err := ta.ch.Send(t.Context(), out); err == nil {
		t.Fatal("Send succeeded although part 2 failed")
	}
	if err := ta.ch.Send(t.Context(), out); err != nil {
		t.Fatalf("retry: %v", err)
	}
	sent := ta.api.callsTo("sendMessage")
	chunks := render(text)
	if len(sent) != 4 {
		t.Fatalf("%d sendMessage calls, want 4 (part 1, failed part 2, parts 2 and 3)", len(sent))
	}
	for i, want := range []int{0, 1, 1, 2} {
		if sent[i].params["text"] != chunks[want].html {
			t.Errorf("call %d did not send part %d", i+1, want+1)
		}
	}
}

// The failure says how many parts Telegram took, and another replica (a
// fresh adapter) retrying the reply with that count recorded in the outbox
// sends only the rest.
func TestSendRetryOnAnotherReplicaResumesAfterRecordedParts(t *testing.T) {
	first := newTestAdapter(t, Config{}, "")
	text, _ := longReply()
	out := botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "123456789"}, ID: "r1", Text: text}
	first.api.script("sendMessage", reply{200, `{"ok":true,"result":{"message_id":1,"date":1732270000,"chat":{"id":123456789,"type":"private"},"text":"x"}}`},
		reply{502, `{"ok":false,"error_code":502,"description":"Bad Gateway"}`})
	err := first.ch.Send(t.Context(), out)
	pe, ok := errors.AsType[*botgw.PlatformError](err)
	if !ok || pe.Sent != 1 {
		t.Fatalf("Send with part 2 failing = %v, want a PlatformError saying 1 part was taken", err)
	}
	other := newTestAdapter(t, Config{}, "")
	out.Sent = pe.Sent
	if err := other.ch.Send(t.Context(), out); err != nil {
		t.Fatalf("retry on the other replica: %v", err)
	}
	sent, chunks := other.api.callsTo("sendMessage"), render(text)
	if len(sent) != 2 || sent[0].params["text"] != chunks[1].html || sent[1].params["text"] != chunks[2].html {
		t.Errorf("the other replica sent %d parts, want parts 2 and 3 only", len(sent))
	}
}
