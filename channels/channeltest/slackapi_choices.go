package channeltest

import (
	"encoding/json"
	"net/url"
)

// postedMessage is a message chat.postMessage accepted.
type postedMessage struct {
	channel string
	msg     map[string]any
}

// Buttons returns the labels of the buttons in the actions blocks of the
// n-th message posted (from 0).
func (f *SlackAPI) Buttons(n int) []string {
	var out []string
	for _, b := range f.buttons(n) {
		out = append(out, b.Text.Text)
	}
	return out
}

// Offered returns, for every message posted in order, the labels of its
// buttons (nil for none).
func (f *SlackAPI) Offered() [][]string {
	f.mu.Lock()
	n := len(f.posted)
	f.mu.Unlock()
	out := make([][]string, n)
	for i := range n {
		out[i] = f.Buttons(i)
	}
	return out
}

type slackButton struct {
	ActionID string `json:"action_id"`
	Value    string `json:"value"`
	Text     struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"text"`
}

func (f *SlackAPI) buttons(n int) []slackButton {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n >= len(f.posted) {
		return nil
	}
	raw, _ := f.posted[n].msg["blocks"].(json.RawMessage)
	var blocks []struct {
		Type     string        `json:"type"`
		BlockID  string        `json:"block_id"`
		Elements []slackButton `json:"elements"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var out []slackButton
	for _, b := range blocks {
		if b.Type == "actions" {
			out = append(out, b.Elements...)
		}
	}
	return out
}

// Tap is the body Slack posts to the Interactivity Request URL when user
// taps button i of the n-th message posted: the form field payload with a
// block_actions interaction.
func (f *SlackAPI) Tap(n, i int, user, triggerID string) []byte {
	return []byte(url.Values{"payload": {f.TapPayload(n, i, user, triggerID)}}.Encode())
}

// TapPayload is the block_actions interaction of that tap, as Socket Mode
// sends it in an interactive envelope's payload.
func (f *SlackAPI) TapPayload(n, i int, user, triggerID string) string {
	bs := f.buttons(n)
	if i >= len(bs) {
		f.t.Fatalf("fake Slack: message %d has no button %d", n, i)
	}
	return f.tapPayload(n, bs[i].ActionID, bs[i].Value, bs[i].Text.Text, user, triggerID)
}

// TapAction is the interactivity body of a tap on a button with the given
// action_id and value on the n-th message posted.
func (f *SlackAPI) TapAction(n int, actionID, value, label, user, triggerID string) []byte {
	return []byte(url.Values{"payload": {f.tapPayload(n, actionID, value, label, user, triggerID)}}.Encode())
}

func (f *SlackAPI) tapPayload(n int, actionID, value, label, user, triggerID string) string {
	f.mu.Lock()
	p := f.posted[n]
	f.mu.Unlock()
	ts, _ := p.msg["ts"].(string)
	thread, _ := p.msg["thread_ts"].(string)
	payload, _ := json.Marshal(map[string]any{
		"type":       "block_actions",
		"user":       map[string]any{"id": user, "username": "ada", "name": "ada", "team_id": "T061EG9R6"},
		"api_app_id": "A0KRD7HC3", "token": "XXYYZZ", "trigger_id": triggerID,
		"container": map[string]any{"type": "message", "message_ts": ts, "channel_id": p.channel,
			"is_ephemeral": false, "thread_ts": thread},
		"team":         map[string]any{"id": "T061EG9R6", "domain": "harrogate"},
		"channel":      map[string]any{"id": p.channel, "name": "directmessage"},
		"message":      p.msg,
		"response_url": "https://hooks.slack.com/actions/T061EG9R6/1/abc",
		"actions": []map[string]any{{"action_id": actionID, "block_id": "botgw_choices", "type": "button",
			"text": map[string]any{"type": "plain_text", "text": label, "emoji": true}, "value": value,
			"action_ts": "1700000300.123456"}},
	})
	return string(payload)
}
