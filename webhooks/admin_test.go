package webhooks

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/providers/fake"
)

func TestAdminRefusesWithoutTheToken(t *testing.T) {
	r := newAdminRig(t, adminToken)
	r.say(t, waChat, "u1", "m1", "hello")
	for _, tc := range []struct{ name, header string }{
		{"missing", ""},
		{"wrong", "Bearer nope"},
		{"not bearer", "Basic " + adminToken},
		{"bare token", adminToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, route := range [][2]string{{"GET", "/v1/admin/chats"}, {"GET", "/v1/admin/chats/" + waPath},
				{"POST", "/v1/admin/chats/" + waPath + "/reset"}, {"GET", "/v1/admin/audit"}} {
				req := httptest.NewRequest(route[0], route[1], nil)
				if tc.header != "" {
					req.Header.Set("Authorization", tc.header)
				}
				w := httptest.NewRecorder()
				r.h.ServeHTTP(w, req)
				if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "authorization") {
					t.Errorf("%s %s: %d %s, want 401 naming authorization", route[0], route[1], w.Code, w.Body)
				}
			}
		})
	}
	var v operator.ChatView
	if status, b := r.do(t, "GET", "/v1/admin/chats/"+waPath, adminToken, "", &v); status != 200 || len(v.History) != 2 {
		t.Errorf("after refused resets: %d %s, want the chat intact", status, b)
	}
}

func TestAdminWithoutAConfiguredTokenRefusesEveryone(t *testing.T) {
	r := newAdminRig(t, "")
	for _, header := range []string{"", "Bearer ", "Bearer x"} {
		req := httptest.NewRequest("GET", "/v1/admin/chats", nil)
		req.Header.Set("Authorization", header)
		w := httptest.NewRecorder()
		r.h.ServeHTTP(w, req)
		if w.Code != http.StatusUnauthorized {
			t.Errorf("Authorization %q with admin.token empty: %d, want 401", header, w.Code)
		}
	}
}

func TestAdminListPagesThroughEveryChat(t *testing.T) {
	// The embedded Redis answers SCAN in one page whatever the COUNT; real
	// Redis shows the cursor at work.
	for _, real := range []bool{false, true} {
		t.Run(map[bool]string{false: "embedded", true: "redis"}[real], func(t *testing.T) {
			r := newAdminRigOn(t, openStore(t, real), adminToken)
			pages := listAll(t, r)
			if real && pages < 2 {
				t.Errorf("7 chats at limit=2 came in %d page(s): the cursor was not used", pages)
			}
		})
	}
}

// listAll creates seven chats, pages through them two at a time and checks
// that every chat came back; it returns the number of pages.
func listAll(t *testing.T, r *adminRig) int {
	t.Helper()
	var want []string
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		chat := "slack:C" + id
		r.say(t, chat, "u1", "m-"+id, "hello from "+id)
		want = append(want, chat)
	}
	var got []string
	cursor, pages := "", 0
	for pages < 500 {
		pages++
		var page struct {
			Chats []string `json:"chats"`
			Next  string   `json:"next"`
		}
		if status, b := r.do(t, "GET", "/v1/admin/chats?limit=2&cursor="+cursor, adminToken, "", &page); status != 200 {
			t.Fatalf("list: %d %s", status, b)
		}
		got = append(got, page.Chats...)
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	slices.Sort(got)
	got = slices.Compact(got) // SCAN may repeat a key; it never misses one
	if !slices.Equal(got, want) {
		t.Errorf("listed %q, want %q", got, want)
	}
	if status, _ := r.do(t, "GET", "/v1/admin/chats?limit=0", adminToken, "", nil); status != 400 {
		t.Errorf("limit=0: %d, want 400", status)
	}
	return pages
}

func location(chat, id, text string) botgw.Inbound {
	k, _ := botgw.ParseChatKey(chat)
	return botgw.Inbound{Chat: k, Kind: botgw.KindEvent, ID: "evt:" + id,
		Event: &botgw.Event{ID: id, Key: "location", Text: text}}
}

func TestAdminShowsADecodedChat(t *testing.T) {
	r := newAdminRig(t, adminToken,
		fake.Step{ToolCalls: []botgw.ToolCall{{ID: "call-1", Name: "nearest_venue", Arguments: `{"near":"station"}`}}},
		fake.Step{Text: "Harrogate Theatre is 200 m away."})
	r.deliver(t, location(waChat, "e1", "User is at the station"))
	r.say(t, waChat, "u1", "m1", "what is near me?")
	var v operator.ChatView
	if status, b := r.do(t, "GET", "/v1/admin/chats/"+waPath, adminToken, "", &v); status != 200 {
		t.Fatalf("show: %d %s", status, b)
	}
	var roles []string
	for _, m := range v.History {
		roles = append(roles, string(m.Role)+": "+m.Text)
	}
	wantRoles := []string{"event: User is at the station", "user: what is near me?", "assistant: ", "assistant: Harrogate Theatre is 200 m away."}
	if !slices.Equal(roles, wantRoles) {
		t.Errorf("history =\n%q\nwant\n%q", roles, wantRoles)
	}
	if len(v.History) == 4 {
		tc := v.History[2].ToolCalls
		if len(tc) != 1 || tc[0].Name != "nearest_venue" || !strings.Contains(tc[0].Result, "Harrogate Theatre") {
			t.Errorf("tool call = %+v, want nearest_venue with its result", tc)
		}
	}
	if len(v.Events) != 1 || v.Events[0].EventKey != "location" || v.Events[0].EventID != "e1" {
		t.Errorf("events = %+v, want the location event", v.Events)
	}
	if v.Chat != waChat || v.Turns != 1 || v.Size == 0 || v.Usage.InputTokens == 0 || v.Usage.OutputTokens == 0 {
		t.Errorf("chat %q turns %d size %d usage %+v", v.Chat, v.Turns, v.Size, v.Usage)
	}
	if v.TTLSeconds <= 0 || v.TTLSeconds > time.Hour.Seconds() {
		t.Errorf("ttl_seconds = %v, want within the configured hour", v.TTLSeconds)
	}
	if status, _ := r.do(t, "GET", "/v1/admin/chats/slack%3Anobody", adminToken, "", nil); status != 404 {
		t.Errorf("unknown chat: %d, want 404", status)
	}
	if status, b := r.do(t, "GET", "/v1/admin/chats/no-colon", adminToken, "", nil); status != 400 || !strings.Contains(string(b), "chat") {
		t.Errorf("bad chat key: %d %s, want 400 naming chat", status, b)
	}
}

func TestAdminExportResetImportRestoresTheConversation(t *testing.T) {
	r := newAdminRig(t, adminToken)
	r.deliver(t, location(threadChat, "e1", "User has just visited Harrogate Theatre"))
	r.say(t, threadChat, "U1", "m1", "my name is Ann")
	r.say(t, threadChat, "U1", "m2", "I like theatres")
	path := "/v1/admin/chats/" + threadPath
	status, exported := r.do(t, "GET", path+"/export", adminToken, "", nil)
	if status != 200 || !json.Valid(exported) {
		t.Fatalf("export: %d %s", status, exported)
	}
	if status, b := r.do(t, "POST", path+"/reset", adminToken, "", nil); status != 200 {
		t.Fatalf("reset: %d %s", status, b)
	}
	if status, _ := r.do(t, "GET", path, adminToken, "", nil); status != 404 {
		t.Errorf("show after reset: %d, want 404", status)
	}
	if status, b := r.do(t, "PUT", path+"/export", adminToken, string(exported), nil); status != 200 {
		t.Fatalf("import: %d %s", status, b)
	}
	if _, again := r.do(t, "GET", path+"/export", adminToken, "", nil); string(again) != string(exported) {
		t.Errorf("export after import differs:\n%s\nwant\n%s", again, exported)
	}
	r.say(t, threadChat, "U1", "m3", "what do you know about me?")
	reqs := r.prov.Requests()
	var texts []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role != botgw.RoleAssistant {
			texts = append(texts, m.Text)
		}
	}
	want := []string{"User has just visited Harrogate Theatre", "my name is Ann", "I like theatres", "what do you know about me?"}
	if !slices.Equal(texts, want) {
		t.Errorf("turn after import saw %q, want %q", texts, want)
	}
	if status, b := r.do(t, "PUT", path+"/export", adminToken, `{"v":99,"history":[]}`, nil); status != 400 || !strings.Contains(string(b), "format") {
		t.Errorf("import of an unknown format: %d %s, want 400", status, b)
	}
}

func TestAdminAuditShowsEveryResetWithItsActor(t *testing.T) {
	r := newAdminRig(t, adminToken)
	r.say(t, waChat, "u1", "m1", "hello")
	r.say(t, threadChat, "U1", "m1", "hello")
	if status, b := r.do(t, "POST", "/v1/admin/chats/"+threadPath+"/reset", adminToken, "", nil); status != 200 {
		t.Fatalf("reset: %d %s", status, b)
	}
	r.say(t, threadChat, "U1", "m2", "/reset "+waChat) // not an operator: refused
	r.say(t, operatorKey, operatorID, "op1", "/reset "+waChat)
	r.say(t, waChat, "u1", "m2", "/reset")
	var entries []audit.Entry
	if status, b := r.do(t, "GET", "/v1/admin/audit", adminToken, "", &entries); status != 200 {
		t.Fatalf("audit: %d %s", status, b)
	}
	var got []string
	for _, e := range entries {
		if e.Action == "reset" {
			got = append(got, e.Actor+" "+e.Target+" "+outcome(e.Result))
		}
		if e.At.IsZero() {
			t.Errorf("audit entry without a time: %+v", e)
		}
	}
	want := []string{ // newest first
		"whatsapp:u1 " + waChat + " ok",
		"whatsapp:" + operatorID + " " + waChat + " ok",
		"slack:U1 " + waChat + " refused",
		"admin-api " + threadChat + " ok",
	}
	if !slices.Equal(got, want) {
		t.Errorf("audit resets =\n%q\nwant\n%q", got, want)
	}
}

// outcome shortens an audit result: an operator command records its reply.
func outcome(result string) string {
	switch {
	case strings.HasPrefix(result, "refused"):
		return "refused"
	case result == "ok" || strings.HasPrefix(result, "Reset "):
		return "ok"
	}
	return result
}
