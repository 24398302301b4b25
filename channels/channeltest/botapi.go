package channeltest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/markup"
)

// Reply is a scripted HTTP answer: status and JSON body.
type Reply struct {
	Status int
	Body   string
}

// BotAPI is a local Telegram Bot API server speaking Telegram's wire
// format: POST /bot<token>/<method>, multipart/form-data or JSON
// parameters, {"ok":true,"result":...} or {"ok":false,"error_code":...,
// "description":...}. It answers getMe, setWebhook, deleteWebhook,
// setMyCommands, sendChatAction, getFile and file downloads (botfiles.go), sendMessage (refusing a text longer than
// 4096 UTF-16 units after entity parsing, as Telegram does) and long-polled
// getUpdates. Like Telegram, it refuses HTML it cannot parse and, after
// BotLimit, answers 429 past a bot-wide send rate.
type BotAPI struct {
	URL      string
	Token    string
	Username string // the bot's @username, answered by getMe
	BotID    int64  // the bot's user id: the token's number

	callLog
	t        testing.TB
	mu       sync.Mutex
	scripted map[string][]Reply // per method, used before the defaults
	updates  []json.RawMessage  // pending getUpdates results, oldest first
	changed  chan struct{}      // closed and replaced on every call or push
	nextID   int
	accepted []APICall       // every sendMessage the fake took, in order
	messages [][]byte        // the Message JSON Telegram answered for each of them
	answered map[string]bool // callback query ids answered
	refusal  *Reply          // refuse sendMessage with this after refuseIn more
	refuseIn int
	limit    *botLimit                // the bot-wide send limit, if BotLimit set one
	files    map[string]*botFile      // by file_id (botfiles.go)
	slow     map[string]time.Duration // per method: how long it takes to answer (Slow)
}

// NewBotAPI starts a fake Bot API for the bot with token, closed when the
// test ends.
func NewBotAPI(t testing.TB, token, username string) *BotAPI {
	id, _ := strconv.ParseInt(strings.SplitN(token, ":", 2)[0], 10, 64)
	f := &BotAPI{Token: token, Username: username, BotID: id, t: t,
		scripted: map[string][]Reply{}, changed: make(chan struct{}), nextID: 5000}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func (f *BotAPI) serve(w http.ResponseWriter, r *http.Request) {
	if path, ok := f.filePath(r); ok {
		f.serveFile(w, r, path)
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+f.Token+"/")
	if !ok || r.Method != http.MethodPost {
		writeReply(w, Reply{404, `{"ok":false,"error_code":404,"description":"Not Found"}`})
		return
	}
	params := f.parseParams(r)
	f.record(APICall{Method: method, Params: params})
	if !f.takeTime(r.Context(), method) {
		return
	}
	if rep, ok := f.overLimit(method); ok {
		writeReply(w, rep)
		return
	}
	if rep, ok := f.refused(method); ok {
		writeReply(w, rep)
		return
	}
	if rep, ok := f.nextScripted(method); ok {
		writeReply(w, rep)
		return
	}
	if method == "getUpdates" {
		f.serveUpdates(w, r, params)
		return
	}
	writeReply(w, f.answer(method, params))
}

// parseParams reads multipart (go-telegram/bot) or JSON bodies. Methods
// without parameters (getMe) come with an empty body.
func (f *BotAPI) parseParams(r *http.Request) map[string]string {
	out := map[string]string{}
	body, err := io.ReadAll(r.Body)
	if err != nil || len(body) == 0 {
		return out
	}
	ct, ps, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "multipart/form-data":
		form, err := multipart.NewReader(bytes.NewReader(body), ps["boundary"]).ReadForm(1 << 20)
		if err != nil {
			f.t.Errorf("fake Bot API: bad multipart body: %v", err)
			return out
		}
		for k, v := range form.Value {
			out[k] = v[0]
		}
	case "application/json":
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			f.t.Errorf("fake Bot API: bad JSON body: %v", err)
		}
		for k, v := range m {
			out[k] = strings.Trim(string(v), `"`)
		}
	default:
		f.t.Errorf("fake Bot API: unexpected Content-Type %q", ct)
	}
	return out
}

func (f *BotAPI) record(c APICall) {
	f.callLog.record(c)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notifyLocked()
}

func (f *BotAPI) notifyLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *BotAPI) nextScripted(method string) (Reply, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.scripted[method]
	if len(q) == 0 {
		return Reply{}, false
	}
	f.scripted[method] = q[1:]
	return q[0], true
}

// refused is the refusal of a sendMessage call, if one is due.
func (f *BotAPI) refused(method string) (Reply, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if method != "sendMessage" || f.refusal == nil {
		return Reply{}, false
	}
	if f.refuseIn > 0 {
		f.refuseIn--
		return Reply{}, false
	}
	return *f.refusal, true
}

// answer gives Telegram's answer to a successful call of method.
func (f *BotAPI) answer(method string, p map[string]string) Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch method {
	case "getMe":
		me, _ := json.Marshal(map[string]any{"id": f.BotID, "is_bot": true, "first_name": "Botgw Test", "username": f.Username,
			"can_join_groups": true, "can_read_all_group_messages": false, "supports_inline_queries": false})
		return Reply{200, `{"ok":true,"result":` + string(me) + `}`}
	case "setWebhook":
		return Reply{200, `{"ok":true,"result":true,"description":"Webhook was set"}`}
	case "deleteWebhook":
		return Reply{200, `{"ok":true,"result":true,"description":"Webhook is already deleted"}`}
	case "sendMessage":
		return f.sendMessage(p)
	case "setMyCommands", "sendChatAction":
		return Reply{200, `{"ok":true,"result":true}`}
	case "answerCallbackQuery":
		return f.answerCallback(p)
	case "getFile":
		return f.getFile(p)
	}
	return Reply{404, `{"ok":false,"error_code":404,"description":"Not Found: method not found"}`}
}

// sendMessage takes a message, or refuses one too long or, in HTML mode,
// with tags Telegram cannot parse; f.mu is held.
func (f *BotAPI) sendMessage(p map[string]string) Reply {
	n := markup.UTF16Len(p["text"])
	if p["parse_mode"] == "HTML" {
		if err := checkHTML(p["text"]); err != nil {
			desc, _ := json.Marshal("Bad Request: can't parse entities: " + err.Error())
			return Reply{400, `{"ok":false,"error_code":400,"description":` + string(desc) + `}`}
		}
		n = markup.UTF16Len(markup.TelegramText(p["text"]))
	}
	if n > 4096 {
		return Reply{400, `{"ok":false,"error_code":400,"description":"Bad Request: message is too long"}`}
	}
	f.accepted = append(f.accepted, APICall{Method: "sendMessage", Params: p})
	f.nextID++
	m := map[string]any{"message_id": f.nextID, "date": time.Now().Unix(), "text": p["text"],
		"from": map[string]any{"id": f.BotID, "is_bot": true, "first_name": "Botgw Test", "username": f.Username},
		"chat": map[string]any{"id": json.RawMessage(p["chat_id"]), "type": "private"}}
	if kb := inlineMarkup(p["reply_markup"]); kb != nil {
		m["reply_markup"] = kb // Telegram echoes an inline keyboard, not a reply keyboard
	}
	msg, _ := json.Marshal(m)
	f.messages = append(f.messages, msg)
	return Reply{200, `{"ok":true,"result":` + string(msg) + `}`}
}
