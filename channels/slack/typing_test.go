package slack

import (
	"testing"

	"github.com/botgw/botgw"
)

func TestStartTypingReactsAndUnreacts(t *testing.T) {
	f := newFakeSlack(t)
	ch := newTestAdapter(t, f)
	in := botgw.Inbound{Chat: threadChat, ID: "1700000200.000300"}
	stop := ch.StartTyping(t.Context(), in)
	added := f.waitFor("reactions.add")
	stop()
	stop() // safe to call twice
	removed := f.waitFor("reactions.remove")
	for _, c := range []call{added, removed} {
		if c.Form.Get("name") != "hourglass_flowing_sand" || c.Form.Get("channel") != "C0LAN2Q65" ||
			c.Form.Get("timestamp") != "1700000200.000300" {
			t.Errorf("%s on %v, want the hourglass on the triggering message", c.Method, c.Form)
		}
	}
}

func TestStartTypingCanBeTurnedOff(t *testing.T) {
	f := newFakeSlack(t)
	ch, err := New(Config{BotToken: testBotToken, SigningSecret: testSecret, APIURL: f.APIURL(), ThinkingReaction: "none"}, testPacer(t), discard())
	if err != nil {
		t.Fatal(err)
	}
	ch.(botgw.Typer).StartTyping(t.Context(), botgw.Inbound{Chat: threadChat, ID: "1"})()
	if n := len(f.calls); n != 0 {
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
	bad, err := New(Config{BotToken: "xoxb-revoked", SigningSecret: testSecret, APIURL: f.APIURL()}, testPacer(t), discard())
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
