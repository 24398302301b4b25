package telegram

import (
	"testing"

	"github.com/botgw/botgw"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		sample  string
		trigger string
		ok      bool
		chat    string
		kind    botgw.InboundKind
		text    string
	}{
		{"private_command.json", "", true, "telegram:123456789", botgw.KindText, "/reset"},
		{"photo_with_caption.json", "", true, "telegram:123456789", botgw.KindText, "Is this the statue from the clue?"},
		{"group_no_mention.json", TriggerAll, true, "telegram:-1001234567890", botgw.KindText, "anyone up for the theatre clue later?"},
		{"group_mention_emoji.json", "", true, "telegram:-4012345678", botgw.KindText, "👋 hi @botgw_test_bot, any hints?"},
		{"group_reply_to_bot.json", "", true, "telegram:-1001234567890", botgw.KindText, "and after that?"},
		{"group_command.json", "", true, "telegram:-1001234567890", botgw.KindText, "/status"},
		{"group_command_other_bot.json", "", false, "", "", ""},
		{"group_command_other_bot.json", TriggerAll, false, "", "", ""},
		{"group_new_member.json", TriggerAll, false, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.sample+"/"+tc.trigger, func(t *testing.T) {
			ta := newTestAdapter(t, Config{GroupTrigger: tc.trigger}, "")
			in, ok := ta.normalize(decodeSample(t, tc.sample))
			if ok != tc.ok {
				t.Fatalf("delivered = %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			if in.Chat.String() != tc.chat || in.Kind != tc.kind || in.Text != tc.text {
				t.Errorf("got chat %s kind %s text %q; want %s %s %q", in.Chat, in.Kind, in.Text, tc.chat, tc.kind, tc.text)
			}
			if in.ID == "" || in.UserID == "" || in.Meta[metaMessageID] != in.ID {
				t.Errorf("inbound lacks ids: %+v", in)
			}
		})
	}
}

// Before getMe answered, the bot cannot recognise its @username, but it
// still answers replies to its own messages (its id is in the token).
func TestNormalizeBeforeStart(t *testing.T) {
	ta := newTestAdapter(t, Config{}, "")
	ta.username.Store(nil)
	if _, ok := ta.normalize(decodeSample(t, "group_mention.json")); ok {
		t.Error("mention delivered although the bot's username is unknown")
	}
	if _, ok := ta.normalize(decodeSample(t, "group_reply_to_bot.json")); !ok {
		t.Error("reply to the bot ignored before getMe")
	}
	in, ok := ta.normalize(decodeSample(t, "private_command.json"))
	if !ok || in.Text != "/reset" {
		t.Errorf("private command read as %q, want /reset", in.Text)
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"@botgw_test_bot hello", "hello"},
		{"@BotGW_Test_Bot, hello", "hello"},
		{"@botgw_test_bot: /reset", "/reset"},
		{"@botgw_test_botty hello", "@botgw_test_botty hello"},
		{"/reset@botgw_test_bot telegram:42", "/reset telegram:42"},
		{"/help@OtherBot", "/help@OtherBot"},
		{"hello @botgw_test_bot", "hello @botgw_test_bot"},
	}
	ta := newTestAdapter(t, Config{}, "")
	for _, tc := range tests {
		if got := ta.cleanText(tc.in); got != tc.want {
			t.Errorf("cleanText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
