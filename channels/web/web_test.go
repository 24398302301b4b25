package web

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

// echoDeliver answers every message at once through the adapter, as the
// engine would after a turn.
func echoDeliver(a *Adapter) botgw.Deliver {
	return func(ctx context.Context, in botgw.Inbound) error {
		go a.Send(ctx, botgw.Outbound{Chat: in.Chat, ID: "re-" + in.ID, Text: "echo: " + in.Text})
		return nil
	}
}

func do(t *testing.T, h http.Handler, method, target, body string) (int, map[string]any) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, strings.NewReader(body)))
	var v map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("non-JSON answer %d %q", w.Code, w.Body)
	}
	return w.Code, v
}

func TestChatWaitsForTheReply(t *testing.T) {
	a := New(Config{ReplyTimeout: 5 * time.Second}, Site{Loopback: true}, slog.New(slog.DiscardHandler))
	h := a.ChatHandler(echoDeliver(a))
	code, v := do(t, h, http.MethodPost, "/v1/chat", `{"chat":"web:a","text":"hi"}`)
	if code != 200 || v["reply"] != "echo: hi" {
		t.Fatalf("got %d %v", code, v)
	}
}

func TestRepliesNobodyWaitedForArePolled(t *testing.T) {
	a := New(Config{}, Site{Loopback: true}, slog.New(slog.DiscardHandler))
	k := botgw.ChatKey{Channel: Name, ID: "p"}
	_ = a.Send(context.Background(), botgw.Outbound{Chat: k, ID: "1", Text: "You found the theatre!"})
	h := a.ChatHandler(echoDeliver(a))
	_, v := do(t, h, http.MethodGet, "/v1/chat?chat=web:p", "")
	if msgs, _ := v["messages"].([]any); len(msgs) != 1 || msgs[0] != "You found the theatre!" {
		t.Fatalf("poll = %v", v)
	}
	if _, v = do(t, h, http.MethodGet, "/v1/chat?chat=web:p", ""); v["messages"] != nil {
		t.Errorf("second poll returned the message again: %v", v)
	}
}

func TestBadChatRequestsNameTheField(t *testing.T) {
	a := New(Config{}, Site{Loopback: true}, slog.New(slog.DiscardHandler))
	h := a.ChatHandler(func(context.Context, botgw.Inbound) error { t.Fatal("bad input was delivered"); return nil })
	for body, field := range map[string]string{
		`{"text":"x"}`:                       "chat:",
		`{"chat":"telegram:1","text":"x"}`:   "chat:",
		`{"chat":"web:a"}`:                   "text:",
		`{"chat":"web:a","text":"   "}`:      "text:",
		`{"chat":"web:a","text":"x","y":1}`:  "body:",
		`[1,2]`:                              "body:",
		`{"chat":"web:a\u0000b","text":"x"}`: "chat:",
		`{"chat":"web:` + strings.Repeat("x", 257) + `","text":"x"}`: "chat:",
	} {
		code, v := do(t, h, http.MethodPost, "/v1/chat", body)
		if msg, _ := v["error"].(string); code != 400 || !strings.HasPrefix(msg, field) {
			t.Errorf("%.40s: %d %v, want 400 naming %s", body, code, v, field)
		}
	}
}

func TestStoreFailureIs503(t *testing.T) {
	a := New(Config{}, Site{Loopback: true}, slog.New(slog.DiscardHandler))
	h := a.ChatHandler(func(context.Context, botgw.Inbound) error { return botgw.ErrBusy })
	if code, _ := do(t, h, http.MethodPost, "/v1/chat", `{"chat":"web:a","text":"hi"}`); code != 503 {
		t.Errorf("got %d, want 503", code)
	}
}

// A client that lost the answer sends the same id again: the store takes
// the message once (no second turn, no second reply), and the retry is
// answered with the first reply at once, which a poll then no longer shows.
func TestRetriedMessageGetsTheFirstReply(t *testing.T) {
	a := New(Config{ReplyTimeout: 2 * time.Second}, Site{Loopback: true}, slog.New(slog.DiscardHandler))
	seen := map[string]bool{}
	h := a.ChatHandler(func(ctx context.Context, in botgw.Inbound) error {
		if !seen[in.ID] { // the store deduplicates by id
			seen[in.ID] = true
			return echoDeliver(a)(ctx, in)
		}
		return nil
	})
	if code, v := do(t, h, http.MethodPost, "/v1/chat", `{"chat":"web:r","text":"hi","id":"m1"}`); code != 200 || v["reply"] != "echo: hi" {
		t.Fatalf("first answer %d %v", code, v)
	}
	k := botgw.ChatKey{Channel: Name, ID: "r"}
	seen["m2"] = true                                                                 // stored, then the client went away
	_ = a.Send(t.Context(), botgw.Outbound{Chat: k, ID: "re-m2", Text: "echo: lost"}) // with nobody waiting
	for id, want := range map[string]string{"m1": "echo: hi", "m2": "echo: lost"} {
		code, v := do(t, h, http.MethodPost, "/v1/chat", `{"chat":"web:r","text":"again","id":"`+id+`"}`)
		if code != 200 || v["reply"] != want {
			t.Errorf("retry of %s: %d %v, want 200 with %q", id, code, v, want)
		}
	}
	if _, v := do(t, h, http.MethodGet, "/v1/chat?chat=web:r", ""); v["messages"] != nil {
		t.Errorf("poll after the retry took the reply: %v, want nothing", v)
	}
}
