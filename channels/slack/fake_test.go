package slack

import (
	"log/slog"
	"testing"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/state/ratelimit"
	"github.com/botgw/botgw/state/ratelimit/ratelimittest"
)

const (
	testBotToken = "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy"
	testAppToken = "xapp-1-A0KRD7HC3-2009290291-0f5e6c9e9a0e4b1c"
	testSecret   = "8f742231b10e8888abcd99yyyzzz85a5"
	botUserID    = "U0BOTUSER1"
	botID        = "B0BOTID01"
)

// newFakeSlack is the fake Web API of the test bot.
func newFakeSlack(t testing.TB) *channeltest.SlackAPI {
	return channeltest.NewSlackAPI(t, testBotToken, testAppToken, botUserID, botID)
}

// newTestAdapter builds an events-mode channel against f and runs Start.
func newTestAdapter(t testing.TB, f *channeltest.SlackAPI) *eventsChannel {
	t.Helper()
	ch, err := New(Config{BotToken: testBotToken, SigningSecret: testSecret, APIURL: f.URL}, Env{Pacer: testPacer(t)}, discard())
	if err != nil {
		t.Fatal(err)
	}
	ec := ch.(*eventsChannel)
	if err := ec.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return ec
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// testPacer paces sends on an embedded Redis with a fake clock.
func testPacer(t testing.TB) *ratelimit.Limiter {
	p, _ := ratelimittest.New(t)
	return p
}
