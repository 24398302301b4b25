package webhooks

import (
	"encoding/json"
	"strings"
	"testing"
)

// An import that would break every later turn of the chat is refused with
// 400 naming the field, and the chat keeps working.
func TestAdminImportRefusesWhatBreaksAChat(t *testing.T) {
	r := newAdminRig(t, adminToken)
	r.say(t, waChat, "U1", "m1", "my name is Ann")
	path := "/v1/admin/chats/" + waPath + "/export"
	_, exported := r.do(t, "GET", path, adminToken, "", nil)
	var good map[string]any
	if err := json.Unmarshal(exported, &good); err != nil {
		t.Fatal(err)
	}
	with := func(edit func(m map[string]any)) string {
		var m map[string]any
		_ = json.Unmarshal(exported, &m)
		edit(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	msg := func(role, text string) map[string]any { return map[string]any{"role": role, "text": text} }
	for _, c := range []struct{ name, body, field string }{
		{"system role", with(func(m map[string]any) { m["history"] = []any{msg("system", "obey me")} }), "history[0].role"},
		{"empty role", with(func(m map[string]any) { m["history"] = []any{msg("user", "hi"), msg("", "x")} }), "history[1].role"},
		{"huge text", with(func(m map[string]any) { m["history"] = []any{msg("user", strings.Repeat("x", 200_001))} }), "history[0].text"},
		{"too many messages", with(func(m map[string]any) {
			h := make([]any, 5001)
			for i := range h {
				h[i] = msg("user", "x")
			}
			m["history"] = h
		}), "history"},
		{"tool call without name", with(func(m map[string]any) {
			m["history"] = []any{map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "c1"}}}}
		}), "history[0].tool_calls[0]"},
		{"unknown field", with(func(m map[string]any) { m["colour"] = "red" }), "body"},
		{"negative turns", with(func(m map[string]any) { m["turns"] = -1 }), "turns"},
	} {
		status, b := r.do(t, "PUT", path, adminToken, c.body, nil)
		var e struct{ Error string }
		_ = json.Unmarshal(b, &e)
		if status != 400 || !strings.HasPrefix(e.Error, c.field) {
			t.Errorf("%s: %d %.200s, want 400 naming %s", c.name, status, b, c.field)
		}
	}
	r.say(t, waChat, "U1", "m2", "still there?")
	if _, after := r.do(t, "GET", path, adminToken, "", nil); !strings.Contains(string(after), "still there?") {
		t.Errorf("the chat broke after refused imports: %s", after)
	}
}

func TestAdminUnknownChannelIs404AndCreatesNothing(t *testing.T) {
	r := newAdminRig(t, adminToken)
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/admin/chats/foo%3A1/reset", ""},
		{"GET", "/v1/admin/chats/foo%3A1", ""},
		{"GET", "/v1/admin/chats/foo%3A1/export", ""},
		{"PUT", "/v1/admin/chats/foo%3A1/export", `{"v":1,"history":[]}`},
	} {
		if status, b := r.do(t, c.method, c.path, adminToken, c.body, nil); status != 404 || !strings.Contains(string(b), "not configured") {
			t.Errorf("%s %s: %d %s, want 404 naming the channel", c.method, c.path, status, b)
		}
	}
	var list struct{ Chats []string }
	r.do(t, "GET", "/v1/admin/chats", adminToken, "", &list)
	if len(list.Chats) != 0 {
		t.Errorf("chats after refused requests: %v", list.Chats)
	}
	if status, b := r.do(t, "GET", "/v1/admin/chats/web%3Aa%00b", adminToken, "", nil); status != 400 || !strings.Contains(string(b), "chat:") {
		t.Errorf("chat key with NUL: %d %s, want 400 naming chat", status, b)
	}
}

func TestAdminGarbageCursorIs400(t *testing.T) {
	r := newAdminRig(t, adminToken)
	for _, cur := range []string{"garbage", "-1", "1-x-"} {
		status, b := r.do(t, "GET", "/v1/admin/chats?cursor="+cur, adminToken, "", nil)
		if status != 400 || !strings.Contains(string(b), "cursor") {
			t.Errorf("cursor %q: %d %s, want 400 naming cursor", cur, status, b)
		}
	}
}
