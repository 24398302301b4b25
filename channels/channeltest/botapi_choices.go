package channeltest

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// inlineMarkup is the inline keyboard of a sendMessage's reply_markup
// parameter, nil when it has none (no markup, or a reply keyboard).
func inlineMarkup(raw string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(raw), &m) != nil || m["inline_keyboard"] == nil {
		return nil
	}
	return m
}

// answerCallback answers answerCallbackQuery as Telegram does: once per
// query; a second answer is refused as too old. f.mu is held.
func (f *BotAPI) answerCallback(p map[string]string) Reply {
	id := p["callback_query_id"]
	if id == "" || f.answered[id] {
		return Reply{400, `{"ok":false,"error_code":400,"description":"Bad Request: query is too old and response timeout expired or query ID is invalid"}`}
	}
	if f.answered == nil {
		f.answered = map[string]bool{}
	}
	f.answered[id] = true
	return Reply{200, `{"ok":true,"result":true}`}
}

// Tap is the Update Telegram posts when user taps button (row, from 0) of
// the n-th message sendMessage took (from 0): a callback_query carrying
// that message with its keyboard, and the button's callback_data.
// inaccessible sends the message as Telegram does once the bot cannot read
// it any more: only its chat, id and date 0.
func (f *BotAPI) Tap(updateID int, queryID string, n, button int, userID int64, inaccessible bool) []byte {
	f.mu.Lock()
	if n >= len(f.messages) {
		f.mu.Unlock()
		f.t.Fatalf("fake Bot API: no message %d to tap (%d sent)", n, len(f.messages))
	}
	raw := f.messages[n]
	f.mu.Unlock()
	var msg map[string]any
	_ = json.Unmarshal(raw, &msg)
	data := buttonData(msg, button)
	if data == "" {
		f.t.Fatalf("fake Bot API: message %d has no button %d", n, button)
	}
	if inaccessible {
		msg = map[string]any{"chat": msg["chat"], "message_id": msg["message_id"], "date": 0}
	}
	return f.callbackUpdate(updateID, queryID, msg, data, userID)
}

// TapData is the Update of a tap whose callback_data is data, on the n-th
// message sent (a button the gateway never wrote, or forged data).
func (f *BotAPI) TapData(updateID int, queryID string, n int, data string, userID int64) []byte {
	f.mu.Lock()
	raw := f.messages[n]
	f.mu.Unlock()
	var msg map[string]any
	_ = json.Unmarshal(raw, &msg)
	return f.callbackUpdate(updateID, queryID, msg, data, userID)
}

func (f *BotAPI) callbackUpdate(updateID int, queryID string, msg map[string]any, data string, userID int64) []byte {
	u, _ := json.Marshal(map[string]any{"update_id": updateID, "callback_query": map[string]any{
		"id":            queryID,
		"from":          map[string]any{"id": userID, "is_bot": false, "first_name": "Ada", "username": "ada_l"},
		"message":       msg,
		"chat_instance": "-" + strconv.FormatInt(userID*7, 10),
		"data":          data,
	}})
	return u
}

func buttonData(msg map[string]any, button int) string {
	kb, _ := msg["reply_markup"].(map[string]any)
	rows, _ := kb["inline_keyboard"].([]any)
	if button >= len(rows) {
		return ""
	}
	row, _ := rows[button].([]any)
	if len(row) == 0 {
		return ""
	}
	b, _ := row[0].(map[string]any)
	return fmt.Sprint(b["callback_data"])
}

// Answered returns the answerCallbackQuery calls, in order.
func (f *BotAPI) Answered() []APICall { return f.CallsTo("answerCallbackQuery") }

// Offered returns, for every message sendMessage took in order, the labels
// of its inline keyboard's buttons (nil for none).
func (f *BotAPI) Offered() [][]string {
	var out [][]string
	for _, c := range f.Delivered() {
		var labels []string
		if kb := inlineMarkup(c.Params["reply_markup"]); kb != nil {
			rows, _ := kb["inline_keyboard"].([]any)
			for _, r := range rows {
				for _, b := range r.([]any) {
					labels = append(labels, fmt.Sprint(b.(map[string]any)["text"]))
				}
			}
		}
		out = append(out, labels)
	}
	return out
}
