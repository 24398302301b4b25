package convo

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/choices"
	"github.com/botgw/botgw/providers/fake"
)

var ferryOrWalk = []string{"Take the ferry", "Walk"}

func (r *rig) handle(t *testing.T, in botgw.Inbound) {
	t.Helper()
	if in.Chat.IsZero() {
		in.Chat = testChat
	}
	if err := r.eng.Handle(context.Background(), in); err != nil {
		t.Fatalf("handle %s: %v", in.ID, err)
	}
}

// offerByEvent has an app event ask for a reply offering ferryOrWalk and
// returns the reply sent.
func (r *rig) offerByEvent(t *testing.T) botgw.Outbound {
	t.Helper()
	r.handle(t, botgw.Inbound{Kind: botgw.KindEvent, ID: "ev1", Event: &botgw.Event{ID: "ev1",
		Text: "The bridge is closed", Respond: true, Offer: botgw.Offer{Choices: ferryOrWalk}}})
	return r.ch.Wait(t, 1, 10*time.Second)[0]
}

func TestEventChoicesGoWithTheReply(t *testing.T) {
	r := newRig(t, openStore(t, false, fastStore), fake.New(fake.Step{Text: "Ferry or walk?"}), Config{})
	out := r.offerByEvent(t)
	if !slices.Equal(out.Choices, ferryOrWalk) || out.Ref == "" || out.Text != "Ferry or walk?" {
		t.Fatalf("reply %+v, want the model's text with the event's choices and a ref", out)
	}
	said := choices.LastAssistant(history(t, r.store, testChat))
	if said == nil || !slices.Equal(said.Choices, ferryOrWalk) || said.ChoiceRef != out.Ref {
		t.Errorf("history's reply %+v, want it to remember the choices under ref %s", said, out.Ref)
	}
}

func TestModelOffersChoicesWithTheBuiltinTool(t *testing.T) {
	call := botgw.ToolCall{ID: "call_1", Name: OfferChoicesTool, Arguments: `{"choices":["Take the ferry","Walk"]}`}
	prov := fake.New(fake.Step{ToolCalls: []botgw.ToolCall{call}}, fake.Step{Text: "Which way?"})
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	r.say(t, testChat, "m1", "the bridge is closed, what now?")
	out := r.ch.Wait(t, 1, 10*time.Second)[0]
	if !slices.Equal(out.Choices, ferryOrWalk) || out.Text != "Which way?" {
		t.Fatalf("reply %+v, want %q with the model's choices", out, "Which way?")
	}
	if tools := prov.Requests()[0].Tools; !slices.ContainsFunc(tools, func(s botgw.ToolSpec) bool { return s.Name == OfferChoicesTool }) {
		t.Errorf("tools offered %v, want offer_choices among them", tools)
	}
	var recorded *botgw.ToolCall
	for _, m := range history(t, r.store, testChat) {
		for i := range m.ToolCalls {
			recorded = &m.ToolCalls[i]
		}
	}
	if recorded == nil || recorded.Name != OfferChoicesTool || recorded.Result == "" {
		t.Errorf("history's tool exchange %+v, want the offer_choices call with its result", recorded)
	}
}

func TestModelOfferOverTheLimitIsAnErrorForTheModel(t *testing.T) {
	args := `{"choices":["1","2","3","4","5","6","7","8","9","10","11"]}`
	prov := fake.New(fake.Step{ToolCalls: []botgw.ToolCall{{ID: "c1", Name: OfferChoicesTool, Arguments: args}}}, fake.Step{Text: "Pick a number"})
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	r.say(t, testChat, "m1", "numbers please")
	if out := r.ch.Wait(t, 1, 10*time.Second)[0]; len(out.Choices) != 0 {
		t.Errorf("reply offers %q, want no choices from a refused call", out.Choices)
	}
	second := prov.Requests()[1].Messages
	if calls := second[len(second)-1].ToolCalls; len(calls) != 1 || !strings.Contains(calls[0].Error, "at most 10") {
		t.Errorf("the model was told %+v, want an error naming the limit", calls)
	}
}

func TestOfferChoicesCanBeTurnedOff(t *testing.T) {
	prov := fake.New(fake.Step{Text: "hi"})
	r := newRig(t, openStore(t, false, fastStore), prov, Config{NoOfferChoices: true})
	r.say(t, testChat, "m1", "hello")
	r.ch.Wait(t, 1, 10*time.Second)
	if tools := prov.Requests()[0].Tools; len(tools) != 0 {
		t.Errorf("tools offered %v with offer_choices off, want none", tools)
	}
}

func TestTapWithoutLabelIsResolvedFromHistory(t *testing.T) {
	prov := fake.New(fake.Step{Text: "Ferry or walk?"}, fake.Step{Text: "Off you go"})
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	out := r.offerByEvent(t)
	r.handle(t, botgw.Inbound{Kind: botgw.KindText, ID: "cb:1", UserID: "u1", Tap: &botgw.Tap{Ref: out.Ref, Index: 1}})
	r.ch.Wait(t, 2, 10*time.Second)
	msgs := prov.Requests()[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != botgw.RoleUser || last.Text != "Walk" || !last.Tap {
		t.Errorf("the model read %+v, want the tapped label %q as the player's words", last, "Walk")
	}
}

func TestUnknownTapGetsANoteWithoutTheModel(t *testing.T) {
	prov := fake.New(fake.Step{Text: "Ferry or walk?"})
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	r.offerByEvent(t)
	r.handle(t, botgw.Inbound{Kind: botgw.KindText, ID: "cb:2", UserID: "u1", Tap: &botgw.Tap{Data: "buy:sword"}})
	r.ch.Wait(t, 2, 10*time.Second)
	r.handle(t, botgw.Inbound{Kind: botgw.KindText, ID: "cb:3", UserID: "u1", Tap: &botgw.Tap{Ref: "gone", Index: 0}})
	sent := r.ch.Wait(t, 3, 10*time.Second)
	for _, m := range sent[1:] {
		if m.Text != choices.TapNote {
			t.Errorf("answer %q, want the short note %q", m.Text, choices.TapNote)
		}
	}
	if n := len(prov.Requests()); n != 1 {
		t.Errorf("%d model calls, want only the first reply's", n)
	}
	h := history(t, r.store, testChat)
	if got := userTexts(h); !slices.Equal(got, []string{choices.UnknownTap, choices.UnknownTap}) {
		t.Errorf("history's player messages %q, want both taps kept", got)
	}
}

// numberedChannel shows choices as a numbered list.
type numberedChannel struct{ botgw.Channel }

func (numberedChannel) NumberedChoices() bool { return true }

func TestNumberOrLabelPicksTheLatestChoice(t *testing.T) {
	prov := fake.New(fake.Step{Text: "Ferry or walk?"}, fake.Step{Text: "ok"}, fake.Step{Text: "ok"}, fake.Step{Text: "ok"})
	numbered := sendThrough(func(c botgw.Channel) botgw.Channel { return numberedChannel{c} })
	r := newRig(t, openStore(t, false, fastStore), prov, Config{}, numbered)
	r.offerByEvent(t)
	r.say(t, testChat, "m1", " 2 ")
	r.ch.Wait(t, 2, 10*time.Second)
	r.say(t, testChat, "m2", "2") // the latest reply offered nothing: "2" is just text
	r.ch.Wait(t, 3, 10*time.Second)
	got := userTexts(history(t, r.store, testChat))
	if want := []string{"Walk", "2"}; !slices.Equal(got, want) {
		t.Errorf("the player's words %q, want %q", got, want)
	}
}

func TestTypedLabelCountsAsATap(t *testing.T) {
	prov := fake.New(fake.Step{Text: "Ferry or walk?"}, fake.Step{Text: "ok"})
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	r.offerByEvent(t)
	r.say(t, testChat, "m1", "take the FERRY")
	r.say(t, testChat, "m1", "take the FERRY")
	r.ch.Wait(t, 2, 10*time.Second)
	h := history(t, r.store, testChat)
	var user *botgw.Message
	for i := range h {
		if h[i].Role == botgw.RoleUser {
			user = &h[i]
		}
	}
	if user == nil || user.Text != "Take the ferry" || !user.Tap {
		t.Errorf("the player's message %+v, want the choice's label marked as a tap", user)
	}
}

// A choice labelled like a command is the player's words when tapped
// (Telegram, Slack: the adapter marks the tap) or sent back as its label
// (the web chat's button): the model reads it, and the history is kept.
func TestTappedCommandLabelIsTextForTheModel(t *testing.T) {
	prov := fake.New(fake.Step{Text: "Start over?"}, fake.Step{Text: "Sure, typed"}, fake.Step{Text: "Again?"}, fake.Step{Text: "Sure, tapped"})
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	offer := func(id string, n int) botgw.Outbound {
		r.handle(t, botgw.Inbound{Kind: botgw.KindEvent, ID: id, Event: &botgw.Event{ID: id,
			Text: "The round is over", Respond: true, Offer: botgw.Offer{Choices: []string{"/reset", "Keep going"}}}})
		return r.ch.Wait(t, n, 10*time.Second)[n-1]
	}
	offer("ev1", 1)
	r.say(t, testChat, "m1", "/reset") // the web chat's tap: the label as text
	r.ch.Wait(t, 2, 10*time.Second)
	out := offer("ev2", 3)
	r.handle(t, botgw.Inbound{Kind: botgw.KindText, ID: "cb:1", UserID: "u1", Text: "/reset", Tap: &botgw.Tap{Ref: out.Ref, Index: 0}})
	sent := r.ch.Wait(t, 4, 10*time.Second)
	if sent[1].Text != "Sure, typed" || sent[3].Text != "Sure, tapped" {
		t.Fatalf("replies %q, %q; want the model's answers, not the command's", sent[1].Text, sent[3].Text)
	}
	for _, i := range []int{1, 3} {
		msgs := prov.Requests()[i].Messages
		if last := msgs[len(msgs)-1]; last.Role != botgw.RoleUser || last.Text != "/reset" || !last.Tap {
			t.Errorf("request %d: the model read %+v, want the tapped label %q as the player's words", i+1, last, "/reset")
		}
	}
	if h := history(t, r.store, testChat); !slices.ContainsFunc(h, func(m botgw.Message) bool { return m.Text == "Start over?" }) {
		t.Errorf("history %+v, want the conversation kept (no reset)", h)
	}
}

// On a numbered channel (WhatsApp), the number of a choice labelled
// "/reset" is the player's words too: the model reads the label.
func TestNumberedCommandLabelIsTextForTheModel(t *testing.T) {
	prov := fake.New(fake.Step{Text: "Start over?"}, fake.Step{Text: "Sure"})
	numbered := sendThrough(func(c botgw.Channel) botgw.Channel { return numberedChannel{c} })
	r := newRig(t, openStore(t, false, fastStore), prov, Config{}, numbered)
	r.handle(t, botgw.Inbound{Kind: botgw.KindEvent, ID: "ev1", Event: &botgw.Event{ID: "ev1",
		Text: "The round is over", Respond: true, Offer: botgw.Offer{Choices: []string{"/reset", "Keep going"}}}})
	r.ch.Wait(t, 1, 10*time.Second)
	r.say(t, testChat, "m1", "1")
	if sent := r.ch.Wait(t, 2, 10*time.Second); sent[1].Text != "Sure" {
		t.Fatalf("reply %q, want the model's answer, not the command's", sent[1].Text)
	}
	msgs := prov.Requests()[1].Messages
	if last := msgs[len(msgs)-1]; last.Text != "/reset" || !last.Tap {
		t.Errorf("the model read %+v, want the label %q as a tap", last, "/reset")
	}
}
