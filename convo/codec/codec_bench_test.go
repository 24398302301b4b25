package codec

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

// benchEnvelope is a chat of n messages in the shape a location game makes:
// alternating player and assistant turns, an event now and then.
func benchEnvelope(n int) *Envelope {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	env := New(at)
	env.Provider = "openai/gpt-4o-mini"
	for i := range n {
		m := botgw.Message{Role: botgw.RoleUser, At: at.Add(time.Duration(i) * time.Minute),
			Text: fmt.Sprintf("I'm at stop %d by the clock tower, where is the next clue?", i), InboundIDs: []string{fmt.Sprint(i)}}
		switch {
		case i%10 == 9:
			m = botgw.Message{Role: botgw.RoleEvent, At: m.At, EventKey: "location", EventID: fmt.Sprint("evt-", i),
				Text: "User has just visited Harrogate Theatre and earned 50 points"}
		case i%2 == 1:
			m = botgw.Message{Role: botgw.RoleAssistant, At: m.At,
				Text: strings.Repeat("Head north past the fountain, then look for the blue door. ", 4)}
		}
		env.History = append(env.History, m)
		env.MarkSeen(fmt.Sprint(i))
	}
	return env
}

func BenchmarkCodec(b *testing.B) {
	for _, n := range []int{20, 200} {
		env := benchEnvelope(n)
		blob, err := Encode(env)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("Encode/%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Encode(env); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(blob)), "blob-bytes")
		})
		b.Run(fmt.Sprintf("Decode/%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Decode(blob, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
