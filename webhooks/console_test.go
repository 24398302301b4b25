package webhooks

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/internal/wait"
)

var consoleRoutes = [][2]string{
	{"POST", "/v1/admin/chats/" + waPath + "/pause"},
	{"POST", "/v1/admin/chats/" + waPath + "/resume"},
	{"POST", "/v1/admin/chats/" + waPath + "/messages"},
	{"POST", "/v1/admin/chats/" + waPath + "/events"},
	{"GET", "/v1/admin/dead-letters"},
	{"POST", "/v1/admin/dead-letters/1700000000000abcdef01/retry"},
	{"DELETE", "/v1/admin/dead-letters/1700000000000abcdef01"},
}

func TestConsoleRoutesRefuseWithoutTheToken(t *testing.T) {
	r := newAdminRig(t, adminToken)
	r.say(t, waChat, "u1", "m1", "hello")
	for _, route := range consoleRoutes {
		for _, header := range []string{"", "Bearer wrong"} {
			req := httptest.NewRequest(route[0], route[1], strings.NewReader(`{"text":"hi","operator":"x"}`))
			if header != "" {
				req.Header.Set("Authorization", header)
			}
			w := httptest.NewRecorder()
			r.h.ServeHTTP(w, req)
			if w.Code != http.StatusUnauthorized {
				t.Errorf("%s %s with %q: %d, want 401", route[0], route[1], header, w.Code)
			}
		}
	}
	if n := len(r.sent["whatsapp"].Sent()); n != 1 {
		t.Errorf("replies after refused requests: %d, want 1 (nothing sent)", n)
	}
}

func TestConsoleRoutesNameTheBadField(t *testing.T) {
	r := newAdminRig(t, adminToken)
	r.say(t, waChat, "u1", "m1", "hello")
	chat := "/v1/admin/chats/" + waPath
	for _, tc := range []struct {
		method, path, body string
		status             int
		field              string
	}{
		{"POST", chat + "/pause", `{"for":"soon"}`, 400, "for:"},
		{"POST", chat + "/pause", `{"for":"-5m"}`, 400, "for:"},
		{"POST", chat + "/pause", `{"for":30}`, 400, "for:"},
		{"POST", chat + "/pause", `{"fro":"30m"}`, 400, "fro:"},
		{"POST", chat + "/messages", `{"operator":"Sam"}`, 400, "text:"},
		{"POST", chat + "/messages", `{"text":"hi"}`, 400, "operator:"},
		{"POST", chat + "/messages", `{"text":`, 400, "body:"},
		{"POST", chat + "/events", `{"text":""}`, 400, "text:"},
		{"GET", "/v1/admin/dead-letters?limit=0", "", 400, "limit:"},
		{"GET", "/v1/admin/dead-letters?cursor=garbage", "", 400, "cursor:"},
		{"POST", "/v1/admin/chats/whatsapp%3Anobody/pause", `{}`, 404, "chat:"},
		{"POST", "/v1/admin/chats/whatsapp%3Anobody/resume", ``, 404, "chat:"},
		{"POST", "/v1/admin/chats/whatsapp%3Anobody/messages", `{"text":"hi","operator":"Sam"}`, 404, "chat:"},
		{"POST", "/v1/admin/dead-letters/1700000000000abcdef01/retry", ``, 404, "id:"},
		{"POST", "/v1/admin/dead-letters/nope/retry", ``, 404, "id:"},
		{"DELETE", "/v1/admin/dead-letters/1700000000000abcdef01", ``, 404, "id:"},
	} {
		status, b := r.do(t, tc.method, tc.path, adminToken, tc.body, nil)
		if status != tc.status || !strings.Contains(string(b), `"error":"`+tc.field) {
			t.Errorf("%s %s %s: %d %s, want %d naming %s", tc.method, tc.path, tc.body, status, b, tc.status, tc.field)
		}
	}
}

func TestConsolePauseTalkResume(t *testing.T) {
	r := newAdminRig(t, adminToken)
	r.say(t, waChat, "u1", "m1", "hello")
	chat := "/v1/admin/chats/" + waPath
	var paused struct {
		PausedUntil string `json:"paused_until"`
	}
	if status, b := r.do(t, "POST", chat+"/pause", adminToken, `{"for":"45m","operator":"Sam"}`, &paused); status != 200 {
		t.Fatalf("pause: %d %s", status, b)
	}
	until, err := time.Parse(time.RFC3339, paused.PausedUntil)
	if err != nil || until.Sub(time.Now()) < 44*time.Minute || until.Sub(time.Now()) > 46*time.Minute {
		t.Fatalf("paused_until %q: want RFC 3339 about 45m ahead (%v)", paused.PausedUntil, err)
	}
	var v operator.ChatView
	wait.Eventually(t, "paused_until in the chat view", func() bool {
		r.do(t, "GET", chat, adminToken, "", &v)
		return v.PausedUntil == paused.PausedUntil
	})
	r.deliver(t, inbound(t, waChat, "m2", "is anyone there?"))
	if status, b := r.do(t, "POST", chat+"/messages", adminToken, `{"text":"Sam here, I'll look.","operator":"Sam"}`, nil); status != 202 {
		t.Fatalf("message: %d %s", status, b)
	}
	sent := r.sent["whatsapp"].Wait(t, 2, 5*time.Second)
	if sent[1].Text != "Sam here, I'll look." {
		t.Errorf("sent %q, want the operator's words", sent[1].Text)
	}
	r.do(t, "GET", chat, adminToken, "", &v)
	h := v.History
	if n := len(h); n < 2 || h[n-2].Text != "is anyone there?" || h[n-1].Operator != "Sam" || h[n-1].Role != "assistant" {
		t.Errorf("history ends %+v, want the paused-time message then Sam's words as the assistant", h[max(0, len(h)-2):])
	}
	if status, b := r.do(t, "POST", chat+"/resume", adminToken, "", nil); status != 200 {
		t.Fatalf("resume: %d %s", status, b)
	}
	wait.Eventually(t, "the pause gone from the chat view", func() bool {
		v = operator.ChatView{}
		r.do(t, "GET", chat, adminToken, "", &v)
		return v.PausedUntil == ""
	})
	if len(r.prov.Requests()) != 1 {
		t.Errorf("model calls: %d, want 1 (none while paused)", len(r.prov.Requests()))
	}
	var audit []audit.Entry
	r.do(t, "GET", "/v1/admin/audit", adminToken, "", &audit)
	var got []string
	for _, e := range audit {
		got = append(got, e.Actor+" "+e.Action)
	}
	want := "admin-api resume|admin-api (Sam) message|admin-api (Sam) pause"
	if strings.Join(got, "|") != want {
		t.Errorf("audit = %q, want %q", strings.Join(got, "|"), want)
	}
}

func inbound(t *testing.T, chat, id, text string) botgw.Inbound {
	return botgw.Inbound{Chat: key(t, chat), Kind: botgw.KindText, ID: id, UserID: "u1", Text: text}
}

type chatListPage struct {
	Chats []string `json:"chats"`
	Items []struct {
		Chat, Channel, Preview string
		LastActivity           string `json:"last_activity"`
		PausedUntil            string `json:"paused_until"`
	} `json:"items"`
	Next string `json:"next"`
}

func TestChatListNewestFirstFilteredAndPaged(t *testing.T) {
	for _, real := range []bool{false, true} {
		t.Run(map[bool]string{false: "embedded", true: "redis"}[real], func(t *testing.T) {
			r := newAdminRigOn(t, openStore(t, real), adminToken)
			chats := []string{"whatsapp:447700900001@s.whatsapp.net", "slack:C1", "whatsapp:447700900002@s.whatsapp.net", "slack:C2", "slack:D9"}
			for i, c := range chats {
				r.say(t, c, "u1", "m"+c, "message number "+string(rune('A'+i)))
				nextMillisecond() // activity is kept to the millisecond
			}
			var page chatListPage
			r.do(t, "GET", "/v1/admin/chats", adminToken, "", &page)
			if strings.Join(page.Chats, " ") != "slack:D9 slack:C2 whatsapp:447700900002@s.whatsapp.net slack:C1 whatsapp:447700900001@s.whatsapp.net" {
				t.Errorf("chats = %v, want newest activity first", page.Chats)
			}
			if it := page.Items[0]; it.Channel != "slack" || !strings.HasPrefix(it.Preview, "assistant: ") || it.LastActivity == "" {
				t.Errorf("item = %+v, want channel, a preview of the reply and the last activity", it)
			}
			r.do(t, "GET", "/v1/admin/chats?channel=whatsapp", adminToken, "", &page)
			if len(page.Chats) != 2 || !strings.HasPrefix(page.Chats[0], "whatsapp:447700900002") {
				t.Errorf("channel=whatsapp: %v", page.Chats)
			}
			r.do(t, "GET", "/v1/admin/chats?prefix=slack:C", adminToken, "", &page)
			if strings.Join(page.Chats, " ") != "slack:C2 slack:C1" {
				t.Errorf("prefix=slack:C: %v", page.Chats)
			}
			var seen []string
			for cursor, pages := "", 0; pages == 0 || cursor != ""; pages++ {
				page = chatListPage{}
				if status, b := r.do(t, "GET", "/v1/admin/chats?limit=2&cursor="+url.QueryEscape(cursor), adminToken, "", &page); status != 200 {
					t.Fatalf("page %d: %d %s", pages, status, b)
				}
				seen, cursor = append(seen, page.Chats...), page.Next
			}
			if strings.Join(seen, " ") != "slack:D9 slack:C2 whatsapp:447700900002@s.whatsapp.net slack:C1 whatsapp:447700900001@s.whatsapp.net" {
				t.Errorf("paged at limit=2: %v", seen)
			}
			r.do(t, "POST", "/v1/admin/chats/slack%3AC2/reset", adminToken, "", nil)
			r.do(t, "GET", "/v1/admin/chats?channel=slack", adminToken, "", &page)
			if strings.Join(page.Chats, " ") != "slack:D9 slack:C1" {
				t.Errorf("after a reset: %v, want the reset chat gone", page.Chats)
			}
			if status, b := r.do(t, "GET", "/v1/admin/chats?cursor=garbage", adminToken, "", nil); status != 400 || !strings.Contains(string(b), "cursor:") {
				t.Errorf("bad cursor: %d %s", status, b)
			}
		})
	}
}

// nextMillisecond returns once the wall clock reached the next millisecond.
func nextMillisecond() {
	for ms := time.Now().UnixMilli(); time.Now().UnixMilli() == ms; {
		time.Sleep(100 * time.Microsecond)
	}
}
