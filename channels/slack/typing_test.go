package slack

import (
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

func TestStartTypingReactsAndUnreacts(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	in := botgw.Inbound{Chat: threadChat, ID: "1700000200.000300"}
	stop := ch.StartTyping(t.Context(), in)
	added := f.WaitFor("reactions.add")
	stop()
	stop() // safe to call twice
	removed := f.WaitFor("reactions.remove")
	for _, c := range []channeltest.APICall{added, removed} {
		if c.Params["name"] != "hourglass_flowing_sand" || c.Params["channel"] != "C0LAN2Q65" ||
			c.Params["timestamp"] != "1700000200.000300" {
			t.Errorf("%s on %v, want the hourglass on the triggering message", c.Method, c.Params)
		}
	}
}

func TestStartTypingCanBeTurnedOff(t *testing.T) {
	f := newFakeSlack(t)
	ch, err := New(Config{BotToken: testBotToken, SigningSecret: testSecret, APIURL: f.URL, ThinkingReaction: "none"}, Env{Pacer: testPacer(t)}, discard())
	if err != nil {
		t.Fatal(err)
	}
	ch.(botgw.Typer).StartTyping(t.Context(), botgw.Inbound{Chat: threadChat, ID: "1"})()
	if n := len(f.Calls()); n != 0 {
		t.Errorf("%d API calls, want none", n)
	}
}

func TestStartLearnsIdentityAndHealth(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	if got := ch.bot(); got != (identity{UserID: botUserID, BotID: botID}) {
		t.Errorf("identity = %+v", got)
	}
	if err := ch.Health(); err != nil {
		t.Errorf("health = %v, want nil", err)
	}
	bad, err := New(Config{BotToken: "xoxb-revoked", SigningSecret: testSecret, APIURL: f.URL}, Env{Pacer: testPacer(t)}, discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.(botgw.Starter).Start(t.Context()); err == nil {
		t.Fatal("start with a bad token succeeded")
	}
	if bad.(botgw.Health).Health() == nil {
		t.Error("health is nil after a failed auth.test")
	}
}
