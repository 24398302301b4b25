package channeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// SlackAPI is a local Slack Web API speaking Slack's wire format: form
// posts to /api/<method> with the token in the form or as Bearer, JSON
// answers {"ok":true,...} or {"ok":false,"error":"..."}, 429 with
// Retry-After. It answers auth.test, chat.postMessage, reactions.add and
// .remove, apps.connections.open (see UseSocket) and any method given to
// Answer, and serves shared files like files.slack.com (AddFile).
type SlackAPI struct {
	URL       string // ends in /api/, as slack.OptionAPIURL wants
	BotToken  string
	AppToken  string
	BotUserID string
	BotID     string
	callLog
	mu        sync.Mutex
	limits    int    // the next posts answered 429…
	retry     string // …with this Retry-After
	extra     map[string]string
	socket    string // what apps.connections.open answers
	accepted  []string
	posted    []postedMessage // the messages accepted, as Slack keeps them
	refusal   string          // "temporary", "ratelimited", "permanent"
	refuseIn  int
	seen      chan APICall
	files     map[string]*slackFile
	failFiles int // the next file downloads answered 500
	oauth     slackOAuth
	t         testing.TB
}

// NewSlackAPI starts a fake Web API for a bot, closed when the test ends.
func NewSlackAPI(t testing.TB, botToken, appToken, botUserID, botID string) *SlackAPI {
	f := &SlackAPI{BotToken: botToken, AppToken: appToken, BotUserID: botUserID, BotID: botID,
		retry: "1", extra: map[string]string{}, seen: make(chan APICall, 1000), t: t}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL + "/api/"
	return f
}

func (f *SlackAPI) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/files-pri/"):
		f.serveFile(w, r)
		return
	case r.Method == http.MethodGet && r.URL.Path == "/":
		signIn(w)
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, "/api/")
	if !ok || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(body))
	c := APICall{Method: method, Params: map[string]string{}, Token: callToken(r, form)}
	for k := range form {
		c.Params[k] = form.Get(k)
	}
	f.record(c)
	select {
	case f.seen <- c:
	default:
	}
	if method == "oauth.v2.access" {
		f.oauthAccess(w, form)
		return
	}
	if !f.authorised(method, r, form) {
		writeSlack(w, http.StatusOK, `{"ok":false,"error":"invalid_auth"}`)
		return
	}
	f.answer(w, c, form)
}

func (f *SlackAPI) authorised(method string, r *http.Request, form url.Values) bool {
	if method == "apps.connections.open" {
		return r.Header.Get("Authorization") == "Bearer "+f.AppToken
	}
	token := callToken(r, form)
	if known, good := f.issued(token); known {
		return good
	}
	return token == f.BotToken
}

// callToken is the token a Web API call carries: Bearer, else the form's.
func callToken(r *http.Request, form url.Values) string {
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return t
	}
	return form.Get("token")
}

func (f *SlackAPI) answer(w http.ResponseWriter, c APICall, form url.Values) {
	switch c.Method {
	case "auth.test":
		writeSlack(w, http.StatusOK, fmt.Sprintf(`{"ok":true,"url":"https://botgw-test.slack.com/","team":"botgw test",`+
			`"user":"botgw","team_id":"T061EG9R6","user_id":%q,"bot_id":%q,"is_enterprise_install":false}`, f.BotUserID, f.BotID))
	case "chat.postMessage":
		f.postMessage(w, form)
	case "reactions.add", "reactions.remove":
		writeSlack(w, http.StatusOK, `{"ok":true}`)
	case "apps.connections.open":
		f.mu.Lock()
		u := f.socket
		f.mu.Unlock()
		writeSlack(w, http.StatusOK, fmt.Sprintf(`{"ok":true,"url":%q}`, u))
	default:
		f.mu.Lock()
		raw, ok := f.extra[c.Method]
		f.mu.Unlock()
		if ok {
			writeSlack(w, http.StatusOK, raw)
			return
		}
		writeSlack(w, http.StatusOK, `{"ok":false,"error":"unknown_method"}`)
	}
}

func (f *SlackAPI) postMessage(w http.ResponseWriter, form url.Values) {
	f.mu.Lock()
	limited, refused := f.limits > 0, f.refused()
	if limited {
		f.limits--
	}
	retry := f.retry
	f.mu.Unlock()
	switch {
	case refused != "":
		refuseSlack(w, refused)
	case limited:
		w.Header().Set("Retry-After", retry)
		writeSlack(w, http.StatusTooManyRequests, `{"ok":false,"error":"ratelimited"}`)
	case form.Get("text") == "":
		writeSlack(w, http.StatusOK, `{"ok":false,"error":"no_text"}`)
	case utf8.RuneCountInString(form.Get("text")) > 40000:
		writeSlack(w, http.StatusOK, `{"ok":false,"error":"msg_too_long"}`)
	default:
		f.mu.Lock()
		f.accepted = append(f.accepted, form.Get("text"))
		n := len(f.accepted)
		f.mu.Unlock()
		ts := fmt.Sprintf("%d.%06d", time.Now().Unix(), n)
		m := map[string]any{"type": "message", "text": form.Get("text"), "user": f.BotUserID,
			"bot_id": f.BotID, "ts": ts, "thread_ts": form.Get("thread_ts")}
		if b := form.Get("blocks"); b != "" {
			m["blocks"] = json.RawMessage(b)
		}
		msg, _ := json.Marshal(m)
		f.mu.Lock()
		f.posted = append(f.posted, postedMessage{channel: form.Get("channel"), msg: m})
		f.mu.Unlock()
		writeSlack(w, http.StatusOK, fmt.Sprintf(`{"ok":true,"channel":%q,"ts":%q,"message":%s}`, form.Get("channel"), ts, msg))
	}
}

// refused is the refusal due for this post, if any; f.mu is held.
func (f *SlackAPI) refused() string {
	if f.refusal != "" && f.refuseIn > 0 {
		f.refuseIn--
		return ""
	}
	return f.refusal
}

// refuseSlack answers a post the way Slack refuses one.
func refuseSlack(w http.ResponseWriter, how string) {
	switch how {
	case "ratelimited":
		w.Header().Set("Retry-After", "120")
		writeSlack(w, http.StatusTooManyRequests, `{"ok":false,"error":"ratelimited"}`)
	case "permanent":
		writeSlack(w, http.StatusOK, `{"ok":false,"error":"channel_not_found"}`)
	default:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "<html><body>Service Unavailable</body></html>")
	}
}

func writeSlack(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
