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
	if slept := ta.clock.Slept(); len(slept) != 1 || slept[0] != 7*time.Second {
		t.Errorf("waited %v, want retry_after 7s", slept)
	}
}

// A 429 holds the whole bot back, not only the chat that got it: the next
// reply to another chat waits out the retry_after before it is sent.
func TestRateLimitHoldsTheWholeBot(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	ta.api.Script("sendMessage", channeltest.Reply{Status: 429, Body: `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 120","parameters":{"retry_after":120}}`})
	if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "1"}, ID: "r1", Text: "hello"}); err == nil {
		t.Fatal("Send succeeded through a 2-minute rate limit")
	}
	start := ta.clock.Now()
	if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "2"}, ID: "r2", Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if waited := ta.clock.Now().Sub(start); waited < 119*time.Second {
		t.Errorf("another chat's reply went %v after a 429 with retry_after 120", waited)
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

func TestSendIsPacedPerChat(t *testing.T) {
	ta := newTestAdapter(t, Config{RatePerSecond: 0.5, Burst: 1}, "")
	chat := botgw.ChatKey{Channel: Name, ID: "123456789"}
	for i := range 2 {
		if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: chat, ID: fmt.Sprint(i), Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if slept := ta.clock.Slept(); len(slept) != 1 || slept[0] < time.Second {
		t.Errorf("waits %v, want one wait of about 2s before the second message", slept)
	}
}

// With the chat's own pace on the reply (the engine keeps it with the
// chat), a private chat is paced on it, without Redis; a forum topic shares
// its group's limits with the group's other topics, so it stays on Redis.
func TestPrivateChatIsPacedOnItsOwnPace(t *testing.T) {
	sendTwo := func(ta *testAdapter, own *botgw.SendPace) (commands int) {
		t.Helper()
		before := ta.clock.Commands()
		for i := range 2 {
			m := botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "123456789"}, ID: fmt.Sprint(i), Text: "hi", Pace: own}
			if err := ta.ch.Send(t.Context(), m); err != nil {
				t.Fatal(err)
			}
		}
		if slept := ta.clock.Slept(); len(slept) != 1 || slept[0] != 2*time.Second {
			t.Errorf("waits %v, want one wait of 2s before the second message", slept)
		}
		return ta.clock.Commands() - before
	}
	shared := sendTwo(newTestAdapter(t, Config{RatePerSecond: 0.5, Burst: 1}, ""), nil)
	own := botgw.NewSendPace(time.Time{})
	ta := newTestAdapter(t, Config{RatePerSecond: 0.5, Burst: 1}, "")
	kept := sendTwo(ta, own)
	if shared-kept < 2*4 { // redis_rate's script and its TIME, GET, SET
		t.Errorf("two sends to a private chat made %d Redis commands on its own pace and %d without, want 8 fewer", kept, shared)
	}
	if _, taken := own.Next(); !taken {
		t.Error("the chat's own pace was not used")
	}

	topic := botgw.ChatKey{Channel: Name, ID: "-1001234567890/7"}
	before := ta.clock.Commands()
	if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: topic, ID: "t", Text: "hi", Pace: botgw.NewSendPace(time.Time{})}); err != nil {
		t.Fatal(err)
	}
	if n := ta.clock.Commands() - before; n < 4 {
		t.Errorf("a send to a forum topic made %d Redis commands, want its shared limits' (at least 4)", n)
	}
}

// The bot-wide limit spaces messages to different chats; a group also
// gets at most group_rate_per_minute.
func TestSendIsPacedPerBotAndGroup(t *testing.T) {
	ta := newTestAdapter(t, Config{BotRatePerSecond: 2, GroupRatePerMinute: 6}, "")
	start := ta.clock.Now()
	for i := range 5 {
		if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: fmt.Sprint(100 + i)}, ID: "r", Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := ta.clock.Now().Sub(start); got < 1500*time.Millisecond {
		t.Errorf("5 messages to 5 chats at 2/s took %v, want ≥ 1.5s", got)
	}
	start = ta.clock.Now()
	for i := range 3 {
		if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: "-100200"}, ID: fmt.Sprint("g", i), Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := ta.clock.Now().Sub(start); got < 20*time.Second {
		t.Errorf("3 messages to one group at 6/min took %v, want ≥ 20s", got)
	}
}

// Without bot_rate_per_second the bot-wide limit is 30 a second, unless
// rate_per_second is raised above it (a private Bot API server, a load
// test): then there is no bot-wide limit, so 1,000 chats answered at once
// each get their reply at once, not one a millisecond.
func TestBotRateDefaultIsOffWithARaisedChatRate(t *testing.T) {
	for _, tc := range []struct {
		cfg      Config
		n        int           // messages, one per chat
		min, max time.Duration // time waited for them
	}{
		{Config{}, 60, 1900 * time.Millisecond, time.Hour},                                          // 30/s
		{Config{RatePerSecond: 1000, Burst: 1000}, 1200, 0, 0},                                      // no bot-wide limit
		{Config{RatePerSecond: 1000, BotRatePerSecond: 100}, 60, 500 * time.Millisecond, time.Hour}, // set: kept
	} {
		ta := newTestAdapter(t, tc.cfg, "")
		start := ta.clock.Now()
		for i := range tc.n {
			if err := ta.ch.Send(t.Context(), botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: fmt.Sprint(100 + i)}, ID: "r", Text: "hi"}); err != nil {
				t.Fatal(err)
			}
		}
		if got := ta.clock.Now().Sub(start); got < tc.min || got > tc.max {
			t.Errorf("rate_per_second %v, bot_rate_per_second %v: %d messages to %d chats took %v, want %v..%v",
				tc.cfg.RatePerSecond, tc.cfg.BotRatePerSecond, tc.n, tc.n, got, tc.min, tc.max)
		}
	}
}
