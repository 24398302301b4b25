package slack

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/channels/markup"
)

const (
	dmChannel    = "D024BE91L"
	groupChannel = "C0LAN2Q65"
	threadTS     = "1700000100.000200"
	userID       = "U061F7AUR"
)

func TestConformance(t *testing.T) {
	channeltest.Run(t, channeltest.Harness{
		UserID:  userID,
		Dialect: markup.Slack,
		Lacks: map[string]string{
			channeltest.CaseUserName: "Events API messages carry only the user id; a name would cost a users.info call per message",
		},
		New: func(t *testing.T) channeltest.Platform {
			f := newFakeSlack(t)
			return &platform{f: f, ch: newTestAdapter(t, f)}
		},
	})
}

// platform is the adapter in events mode on the fake Web API.
type platform struct {
	f  *channeltest.SlackAPI
	ch *eventsChannel
}

func (p *platform) Channel() botgw.Channel { return p.ch }

func (p *platform) Receive(t *testing.T, m channeltest.Message, deliver botgw.Deliver) {
	body, err := json.Marshal(map[string]any{"token": "XXYYZZ", "team_id": "T061EG9R6", "api_app_id": "A0KRD7HC3",
		"type": "event_callback", "event_id": fmt.Sprintf("Ev%08d", m.Seq), "event_time": 1700000000 + m.Seq, "event": event(m)})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	p.ch.WebhookHandler(deliver).ServeHTTP(w, signedRequest(body, time.Now(), testSecret))
	if w.Code != http.StatusOK {
		t.Fatalf("webhook answered %d %s", w.Code, w.Body)
	}
}

// Key: a direct message is its channel; a mention in a channel starts a
// thread of its own; a message in a thread belongs to the thread.
func (p *platform) Key(m channeltest.Message) botgw.ChatKey {
	switch m.Where {
	case channeltest.Group:
		return botgw.ChatKey{Channel: name, ID: groupChannel + "/" + ts(m)}
	case channeltest.Thread:
		return botgw.ChatKey{Channel: name, ID: groupChannel + "/" + threadTS}
	}
	return botgw.ChatKey{Channel: name, ID: dmChannel}
}

func (p *platform) Sent() []string { return p.f.Sent() }

func (p *platform) Fail(f channeltest.Failure, n int) { p.f.Refuse(f, n) }

func (p *platform) Typing() int { return len(p.f.CallsTo("reactions.add")) }

// slackEscape escapes text the way Slack does in events.
var slackEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func ts(m channeltest.Message) string { return fmt.Sprintf("1700000000.%06d", m.Seq) }

// event writes m as the Events API inner event Slack would send.
func event(m channeltest.Message) map[string]any {
	e := map[string]any{"type": "message", "user": m.UserID, "text": slackEscape.Replace(m.Text), "ts": ts(m), "event_ts": ts(m),
		"channel": dmChannel, "channel_type": "im", "team": "T061EG9R6"}
	if m.Where != channeltest.Private {
		e["channel"], e["channel_type"] = groupChannel, "channel"
	}
	if m.Mention {
		e["type"], e["text"] = "app_mention", "<@"+botUserID+"> "+slackEscape.Replace(m.Text)
		delete(e, "channel_type")
	}
	if m.Where == channeltest.Thread {
		e["thread_ts"] = threadTS
	}
	switch m.What {
	case channeltest.Media:
		e["subtype"], e["files"] = "file_share", []map[string]any{{"id": "F0S43PZDF", "name": "IMG_0042.jpg", "mimetype": "image/jpeg"}}
	case channeltest.Edit:
		e = map[string]any{"type": "message", "subtype": "message_changed", "channel": e["channel"], "hidden": true,
			"ts": ts(m), "message": map[string]any{"type": "message", "user": m.UserID, "text": m.Text, "ts": "1700000000.000001",
				"edited": map[string]any{"user": m.UserID, "ts": ts(m)}}}
	case channeltest.Reaction:
		e = map[string]any{"type": "reaction_added", "user": m.UserID, "reaction": "thumbsup", "event_ts": ts(m),
			"item": map[string]any{"type": "message", "channel": e["channel"], "ts": "1700000000.000001"}}
	case channeltest.Own:
		e["user"], e["bot_id"] = botUserID, botID
	}
	return e
}

func (p *platform) Offered() [][]string { return p.f.Offered() }

// Tap posts the signed block_actions interaction of a tap on button i of
// the n-th message.
func (p *platform) Tap(t *testing.T, n, i, seq int, deliver botgw.Deliver) {
	body := p.f.Tap(n, i, userID, fmt.Sprintf("1700000.%d.trigger", seq))
	if w := signedTap(p.ch.WebhookHandler(deliver), body, time.Now(), testSecret); w.Code != http.StatusOK {
		t.Fatalf("interactivity answered %d %s", w.Code, w.Body)
	}
}
