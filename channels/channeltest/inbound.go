package channeltest

import (
	"slices"
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

// The cases of the suite, by name; a harness names those its platform lacks.
const (
	CasePrivateText     = "inbound/private-text"
	CaseGroupMention    = "inbound/group-mention"
	CaseGroupNoMention  = "inbound/group-without-mention-ignored"
	CaseThreadReply     = "inbound/thread-reply"
	CaseEditIgnored     = "inbound/edit-ignored"
	CaseReactionIgnored = "inbound/reaction-ignored"
	CaseOwnIgnored      = "inbound/own-message-ignored"
	CaseMedia           = "inbound/media"
	CaseDuplicate       = "inbound/duplicate-stored-once"
	CaseUserID          = "inbound/user-id"
	CaseUserName        = "inbound/user-name"
)

var cases = slices.Concat(inboundCases, outboundCases, choiceCases)

var inboundCases = []suiteCase{
	{CasePrivateText, func(t *testing.T, h Harness, e *env) {
		m := h.msg(1, Text, Private, "Where is the theatre? Is it <5 min & open?")
		in := e.one(t, m)
		if in.Kind != botgw.KindText || in.Text != m.Text || in.ID == "" {
			t.Errorf("stored %s %q (id %q), want text %q with the platform's message id", in.Kind, in.Text, in.ID, m.Text)
		}
	}},
	{CaseGroupMention, func(t *testing.T, h Harness, e *env) {
		m := h.msg(1, Text, Group, "what is the next clue?")
		m.Mention = true
		if in := e.one(t, m); in.Text != m.Text {
			t.Errorf("stored text %q, want %q without the mention", in.Text, m.Text)
		}
	}},
	{CaseGroupNoMention, func(t *testing.T, h Harness, e *env) {
		e.ignoredOnly(t, h.msg(1, Text, Group, "chatting among ourselves"))
	}},
	{CaseThreadReply, func(t *testing.T, h Harness, e *env) {
		m := h.msg(1, Text, Thread, "and in this topic?")
		m.Mention = true
		in := e.one(t, m)
		group, _, _ := strings.Cut(e.Key(h.msg(2, Text, Group, "")).ID, "/")
		if !strings.HasPrefix(in.Chat.ID, group+"/") || len(in.Chat.ID) == len(group)+1 {
			t.Errorf("chat %s, want <group>/<thread> with group %s (CONTRACT.md, chat keys)", in.Chat, group)
		}
	}},
	{CaseEditIgnored, func(t *testing.T, h Harness, e *env) {
		e.ignoredOnly(t, h.msg(1, Edit, Private, "edited text"))
	}},
	{CaseReactionIgnored, func(t *testing.T, h Harness, e *env) {
		e.ignoredOnly(t, h.msg(1, Reaction, Private, "👍"))
	}},
	{CaseOwnIgnored, func(t *testing.T, h Harness, e *env) {
		e.ignoredOnly(t, h.msg(1, Own, Private, "a reply the bot sent"))
	}},
	{CaseMedia, func(t *testing.T, h Harness, e *env) {
		in := e.one(t, h.msg(1, Media, Private, ""))
		photo := in.Media != nil && in.Media.Kind == botgw.MediaPhoto && in.Kind == botgw.KindText
		if !photo && in.Kind != botgw.KindUnsupported {
			t.Errorf("stored kind %q with media %+v, want a photo reference, or %q (answered with the text-only notice)", in.Kind, in.Media, botgw.KindUnsupported)
		}
	}},
	{CaseDuplicate, func(t *testing.T, h Harness, e *env) {
		m := h.msg(1, Text, Private, "only once please")
		e.receive(t, m)
		if again := e.receive(t, m); len(again) != 0 {
			t.Errorf("the same platform message delivered twice was stored twice: ids %q", ids(e.store.Stored()))
		}
		if next := e.receive(t, h.msg(2, Text, Private, "a second message")); len(next) != 1 {
			t.Errorf("a different message was not stored: ids %q", ids(e.store.Stored()))
		}
	}},
	{CaseUserID, func(t *testing.T, h Harness, e *env) {
		if in := e.one(t, h.msg(1, Text, Private, "who am I?")); in.UserID != h.UserID {
			t.Errorf("user id %q, want %q", in.UserID, h.UserID)
		}
	}},
	{CaseUserName, func(t *testing.T, h Harness, e *env) {
		if in := e.one(t, h.msg(1, Text, Private, "what is my name?")); in.UserName != h.UserName {
			t.Errorf("user name %q, want %q", in.UserName, h.UserName)
		}
	}},
}

func (h Harness) msg(seq int, what What, where Where, text string) Message {
	return Message{Seq: seq, What: what, Where: where, Text: text, UserID: h.UserID, UserName: h.UserName}
}

// one receives m and checks exactly one Inbound was stored, in m's chat.
func (e *env) one(t *testing.T, m Message) botgw.Inbound {
	t.Helper()
	got := e.receive(t, m)
	if len(got) != 1 {
		t.Fatalf("%d message(s) stored, want 1", len(got))
	}
	if want := e.Key(m); got[0].Chat != want {
		t.Errorf("stored in chat %s, want %s (CONTRACT.md, chat keys)", got[0].Chat, want)
	}
	return got[0]
}

// ignoredOnly receives m and checks nothing was stored and it was counted.
func (e *env) ignoredOnly(t *testing.T, m Message) {
	t.Helper()
	before := e.ignored.Load()
	if got := e.receive(t, m); len(got) != 0 {
		t.Errorf("stored %d message(s) (%q), want none", len(got), got[0].Text)
	}
	if n := e.ignored.Load() - before; n != 1 {
		t.Errorf("counted %d ignored input(s), want 1", n)
	}
}

func ids(ins []botgw.Inbound) []string {
	var out []string
	for _, in := range ins {
		out = append(out, in.ID)
	}
	return out
}
