package webhooks

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state"
)

const adminToken = "s3cret-admin"

// Escaped forms of chat keys as a client puts them in a path.
const (
	waChat      = "whatsapp:447700900123@s.whatsapp.net"
	waPath      = "whatsapp%3A447700900123%40s.whatsapp.net"
	threadChat  = "slack:C1/1700000000.000100"
	threadPath  = "slack%3AC1%2F1700000000.000100"
	operatorID  = "447700900999"
	operatorKey = "whatsapp:" + operatorID + "@s.whatsapp.net"
)

// adminRig is a whole gateway minus the platforms: an engine over the
// embedded store with a fake provider and recording channels, and the HTTP
// server with the admin API over a real operator.API.
type adminRig struct {
	h     http.Handler
	eng   *convo.Engine
	prov  *fake.Provider
	sent  map[string]*channeltest.Recorder
	total int // replies expected so far
}

func newAdminRig(t *testing.T, token string, steps ...fake.Step) *adminRig {
	t.Helper()
	return newAdminRigOn(t, openStore(t, false), token, steps...)
}

// openStore opens the embedded store, or real Redis under a random key
// prefix when real is set (skipping without BOTGW_TEST_REDIS_URL).
func openStore(t *testing.T, real bool) *state.Store {
	t.Helper()
	cfg := state.Config{}
	if real {
		url := os.Getenv("BOTGW_TEST_REDIS_URL")
		if url == "" {
			t.Skip("BOTGW_TEST_REDIS_URL not set: skipping real-Redis test")
		}
		cfg = state.Config{URL: url, KeyPrefix: "botgwtest-" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	}
	st, err := state.Open(context.Background(), cfg, state.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if real {
			ctx := context.Background()
			keys, _ := st.Client().Keys(ctx, cfg.KeyPrefix+":*").Result()
			if len(keys) > 0 {
				st.Client().Del(ctx, keys...)
			}
		}
		st.Close()
	})
	return st
}

func newAdminRigOn(t *testing.T, st *state.Store, token string, steps ...fake.Step) *adminRig {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	r := &adminRig{prov: fake.New(steps...), sent: map[string]*channeltest.Recorder{}}
	chans := map[string]botgw.Channel{}
	for _, name := range []string{"whatsapp", "slack"} {
		r.sent[name] = channeltest.NewRecorder(name)
		chans[name] = r.sent[name]
	}
	trail := audit.NewLog(st.AuditStream())
	var err error
	r.eng, err = convo.New(convo.Config{StateTTL: time.Hour, PollInterval: 50 * time.Millisecond,
		Operators: map[string][]string{"whatsapp": {operatorID}}},
		convo.Deps{Store: st, Provider: r.prov, Channels: chans, Tools: venues{}, Audit: trail, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go r.eng.Run(ctx)
	t.Cleanup(func() {
		cancel()
		closeCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = r.eng.Close(closeCtx)
	})
	op := &operator.API{Store: st, Trail: trail, StateTTL: time.Hour, Log: log, Deliver: r.eng.Handle}
	list := []botgw.Channel{chans["whatsapp"], chans["slack"]}
	r.h = New(Deps{Deliver: r.eng.Handle, Admin: NewAdmin(token, op, log).WithChannels(list)}).Handler()
	return r
}

// venues is a one-tool convo.Tools, so histories hold a real tool call.
type venues struct{}

func (venues) Specs() []botgw.ToolSpec { return []botgw.ToolSpec{{Name: "nearest_venue"}} }

func (venues) Call(context.Context, botgw.ChatKey, string, botgw.ToolCall) (string, error) {
	return `{"venue":"Harrogate Theatre","metres":200}`, nil
}

// say delivers a user message (from user) and waits for its reply.
func (r *adminRig) say(t *testing.T, chat, user, id, text string) {
	t.Helper()
	r.deliver(t, botgw.Inbound{Chat: key(t, chat), Kind: botgw.KindText, ID: id, UserID: user, Text: text})
	r.total++
	deadline := time.Now().Add(5 * time.Second)
	for r.replies() < r.total {
		if time.Now().After(deadline) {
			t.Fatalf("no reply to %q within 5s", text)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *adminRig) replies() int {
	n := 0
	for _, rec := range r.sent {
		n += len(rec.Sent())
	}
	return n
}

func (r *adminRig) deliver(t *testing.T, in botgw.Inbound) {
	t.Helper()
	if err := r.eng.Handle(context.Background(), in); err != nil {
		t.Fatalf("handle %s: %v", in.ID, err)
	}
}

// do makes one admin request and decodes the JSON answer into out (if
// non-nil); it returns the status and the raw body.
func (r *adminRig) do(t *testing.T, method, path, token, body string, out any) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	r.h.ServeHTTP(w, req)
	b, _ := io.ReadAll(w.Result().Body)
	if out != nil && w.Code < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: non-JSON answer %q", method, path, b)
		}
	}
	return w.Code, b
}

func key(t *testing.T, s string) botgw.ChatKey {
	t.Helper()
	k, err := botgw.ParseChatKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

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
