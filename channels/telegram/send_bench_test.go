package telegram

import (
	"strconv"
	"testing"

	"github.com/botgw/botgw"
)

// BenchmarkSend is one reply through the adapter to the fake Bot API: the
// send limits on the embedded Redis, the Markdown rendering and
// go-telegram/bot's sendMessage round trip.
func BenchmarkSend(b *testing.B) {
	ta := newTestAdapter(b, Config{RatePerSecond: 1e6, Burst: 1000}, "")
	text := "Sure! You are at **Harrogate Theatre**: +50 points. Next, find the _bronze plaque_ by the `visitor centre`."
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out := botgw.Outbound{Chat: botgw.ChatKey{Channel: Name, ID: strconv.Itoa(100 + i%1000)}, ID: "r" + strconv.Itoa(i), Text: text}
		if err := ta.ch.Send(b.Context(), out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTyping is one typing signal (sendChatAction) to the fake Bot
// API, as a turn waiting on the model sends it.
func BenchmarkTyping(b *testing.B) {
	ta := newTestAdapter(b, Config{}, "")
	t := target{chat: 100}
	b.ReportAllocs()
	for b.Loop() {
		if err := ta.sendTyping(b.Context(), t); err != nil {
			b.Fatal(err)
		}
	}
}
