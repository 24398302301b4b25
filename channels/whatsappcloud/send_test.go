package whatsappcloud

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
)

// A long reply goes in parts of at most 4,096 characters; choices ride on
// the last part as reply buttons (≤ 3 short ones) or a list.
func TestSendSplitsAndOffers(t *testing.T) {
	r := newRig(t, false)
	long := strings.Repeat("word ", 1000) // 5,000 characters
	if err := r.a.Send(ctx(t), botgw.Outbound{Chat: chat(), ID: "r1", Text: long}); err != nil {
		t.Fatal(err)
	}
	sent := r.graph.SentTo(player)
	if len(sent) != 2 || len([]rune(channeltest.GraphText(sent[0]))) > maxText {
		t.Fatalf("sent %d parts, want 2 of at most %d characters", len(sent), maxText)
	}
	offer := botgw.Offer{Choices: []string{"Ferry", "Bridge"}, Ref: "o1"}
	if err := r.a.Send(ctx(t), botgw.Outbound{Chat: chat(), ID: "r2", Text: "How?", Offer: offer}); err != nil {
		t.Fatal(err)
	}
	many := botgw.Offer{Choices: []string{"a", "b", "c", "d", "The long way round by the old canal towpath"}, Ref: "o2"}
	if err := r.a.Send(ctx(t), botgw.Outbound{Chat: chat(), ID: "r3", Text: "Pick", Offer: many}); err != nil {
		t.Fatal(err)
	}
	sent = r.graph.SentTo(player)
	buttons := sent[2]["interactive"].(map[string]any)
	if buttons["type"] != "button" || channeltest.GraphText(sent[2]) != "How?" {
		t.Errorf("two choices: %v, want reply buttons under the text", buttons)
	}
	b0 := buttons["action"].(map[string]any)["buttons"].([]any)[0].(map[string]any)["reply"].(map[string]any)
	if b0["id"] != "c1:o1:0" || b0["title"] != "Ferry" {
		t.Errorf("button %v", b0)
	}
	list := sent[3]["interactive"].(map[string]any)
	rows := list["action"].(map[string]any)["sections"].([]any)[0].(map[string]any)["rows"].([]any)
	last := rows[4].(map[string]any)
	if list["type"] != "list" || len(rows) != 5 || len([]rune(last["title"].(string))) > maxRowTitle || last["description"] != many.Choices[4] {
		t.Errorf("five choices: %v, want a list with the long label cut in its title and whole in its description", list)
	}
}

// Outside the window a proactive message goes as the template; without
// one it is refused for good, naming the window. Inside, as text.
func TestWindow(t *testing.T) {
	for _, withTemplate := range []bool{true, false} {
		r := newRig(t, withTemplate)
		// 24.5 h: the chat's last timestamp is still kept (the 25 h case, with
		// none kept, is the gateway test's)
		r.receive(t, text("wamid.old", "hi", time.Now().Add(-24*time.Hour-30*time.Minute)))
		err := r.a.Send(ctx(t), botgw.Outbound{Chat: chat(), ID: "p1", Text: "The final round\nstarts now", Proactive: true})
		var pe *botgw.PlatformError
		switch {
		case withTemplate && (err != nil || len(r.texts()) != 1 || r.texts()[0] != "template:The final round starts now"):
			t.Errorf("with a template: %v, sent %q, want the template with the text", err, r.texts())
		case !withTemplate && (!errors.As(err, &pe) || !pe.Permanent || !strings.Contains(err.Error(), ErrOutsideWindow) || len(r.texts()) != 0):
			t.Errorf("without a template: %v, sent %q, want a permanent error naming the window", err, r.texts())
		}
		// a reply to the message, older than the window, goes the same way
		old := r.store.Stored()[0]
		err = r.a.Send(ctx(t), botgw.Outbound{Chat: chat(), ID: "a1", Text: "Hello again", Meta: old.Meta})
		if withTemplate != (err == nil) {
			t.Errorf("template %v: reply to a message older than the window: %v", withTemplate, err)
		}
		r.receive(t, text("wamid.new", "back", time.Now()))
		before := len(r.texts())
		if err := r.a.Send(ctx(t), botgw.Outbound{Chat: chat(), ID: "p2", Text: "Welcome back", Proactive: true}); err != nil {
			t.Fatal(err)
		}
		if got := r.texts()[before:]; len(got) != 1 || got[0] != "text:Welcome back" {
			t.Errorf("inside the window: %q, want text", got)
		}
	}
}

// The send call's error codes: rate limits are retried later, 131026 is
// not, 131047 falls back to the template, 190 makes the channel unhealthy
// until a send works again.
func TestSendErrorCodes(t *testing.T) {
	r := newRig(t, true)
	r.receive(t, text("wamid.in", "hi", time.Now()))
	send := func(id string) error {
		return r.a.Send(ctx(t), botgw.Outbound{Chat: chat(), ID: id, Text: "reply " + id})
	}
	refuse := func(status, code int) {
		r.graph.Refuse(channeltest.Reply{Status: status, Body: channeltest.GraphError(code, "code "+strconv.Itoa(code))})
	}
	var pe *botgw.PlatformError
	refuse(400, 131056)
	if err := send("a"); !errors.As(err, &pe) || pe.Permanent || pe.RetryAfter == 0 {
		t.Errorf("131056: %v, want retried later", err)
	}
	refuse(400, 131026)
	if err := send("b"); !errors.As(err, &pe) || !pe.Permanent {
		t.Errorf("131026: %v, want not retried", err)
	}
	refuse(400, 131047)
	if err := send("c"); err != nil || r.texts()[len(r.texts())-1] != "template:reply c" {
		t.Errorf("131047: %v, sent %q, want the template", err, r.texts())
	}
	refuse(401, 190)
	if err := send("d"); !errors.As(err, &pe) || pe.Permanent || r.a.Health() == nil {
		t.Errorf("190: %v, health %v, want retried and the channel unhealthy", err, r.a.Health())
	}
	if err := send("d"); err != nil || r.a.Health() != nil {
		t.Errorf("after a new token works: %v, health %v", err, r.a.Health())
	}
	if c := r.a.EventCounts(); c["error_131056"] != 1 || c["error_190"] != 1 || c["error_131047"] != 1 {
		t.Errorf("counts %v", c)
	}
}

// A failed status puts the message back through the pending list: 131047
// as the template, 130429 as it was, 131051 as a refusal (a dead letter).
func TestFailedStatus(t *testing.T) {
	r := newRig(t, true)
	r.receive(t, text("wamid.in", "hi", time.Now()))
	if err := r.a.Send(ctx(t), botgw.Outbound{Chat: chat(), ID: "r1", Text: "first"}); err != nil {
		t.Fatal(err)
	}
	wamid := r.graph.SentTo(player)[0]["wamid"].(string)
	for _, code := range []int{131047, 130429, 131051} {
		st := []map[string]any{{"id": wamid, "status": "failed", "timestamp": "1", "recipient_id": player,
			"errors": []map[string]any{{"code": code, "title": "t"}}}}
		r.store = &channeltest.Store{}
		if w := r.post(t, channeltest.WAHook(testPhone, nil, st), testSecret); w.Code != 200 {
			t.Fatalf("%d: webhook %d", code, w.Code)
		}
		s := r.store.Stored()
		if len(s) != 1 || s[0].Op == nil || s[0].Op.Action != botgw.OpRedeliver || s[0].Op.Reply.Text != "first" {
			t.Fatalf("%d: stored %+v, want a redelivery of the message", code, s)
		}
		reply := *s[0].Op.Reply
		err := r.a.Send(ctx(t), reply)
		var pe *botgw.PlatformError
		switch code {
		case 131047:
			if err != nil || r.texts()[len(r.texts())-1] != "template:first" {
				t.Errorf("131047: %v %q, want the template", err, r.texts())
			}
		case 130429:
			if err != nil || r.texts()[len(r.texts())-1] != "text:first" {
				t.Errorf("130429: %v %q, want the text again", err, r.texts())
			}
		case 131051:
			if !errors.As(err, &pe) || !pe.Permanent {
				t.Errorf("131051: %v, want refused for good", err)
			}
		}
	}
}
