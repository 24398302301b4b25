package tools

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

// gameRequest is what a fake game endpoint received.
type gameRequest struct {
	Method, Path, Query string
	Header              http.Header
	Body                string
}

// fakeGame is a game backend: it records each request and answers with
// respond.
type fakeGame struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []gameRequest
}

func newFakeGame(t *testing.T, respond http.HandlerFunc) *fakeGame {
	t.Helper()
	g := &fakeGame{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		g.mu.Lock()
		g.reqs = append(g.reqs, gameRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), string(b)})
		g.mu.Unlock()
		respond(w, r)
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *fakeGame) requests() []gameRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]gameRequest(nil), g.reqs...)
}

func newTools(t *testing.T, cfgs ...Config) *HTTP {
	t.Helper()
	h, err := NewHTTP(cfgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

var player = botgw.ChatKey{Channel: "telegram", ID: "42"}

func TestToolCallPostsArgumentsWithChatAndUser(t *testing.T) {
	game := newFakeGame(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"score":1250,"rank":3}`)
	})
	tools := newTools(t, Config{Name: "get_score", Description: "The player's score.", URL: game.URL + "/api/score",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"team": map[string]any{"type": "string"}}},
		Headers:    map[string]string{"Authorization": "Bearer game-token"}})

	got, err := tools.Call(context.Background(), player, "u-7", botgw.ToolCall{ID: "call_1", Name: "get_score", Arguments: `{"team":"red"}`})
	if err != nil || got != `{"score":1250,"rank":3}` {
		t.Fatalf("Call = %q, %v", got, err)
	}
	r := game.requests()[0]
	want := map[string]string{"X-Botgw-Chat": "telegram:42", "X-Botgw-User": "u-7", "X-Botgw-Call-Id": "call_1",
		"Authorization": "Bearer game-token", "Content-Type": "application/json"}
	for h, v := range want {
		if r.Header.Get(h) != v {
			t.Errorf("header %s = %q, want %q", h, r.Header.Get(h), v)
		}
	}
	if r.Method != http.MethodPost || r.Path != "/api/score" || r.Body != `{"team":"red"}` {
		t.Errorf("request = %s %s %s", r.Method, r.Path, r.Body)
	}
	spec := tools.Specs()[0]
	if spec.Name != "get_score" || !strings.Contains(string(spec.Parameters), `"team"`) {
		t.Errorf("spec = %+v", spec)
	}
}

func TestGetToolSendsArgumentsAsQuery(t *testing.T) {
	game := newFakeGame(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `["red","blue"]`) })
	tools := newTools(t, Config{Name: "teams", URL: game.URL + "/teams?season=1", Method: "get"})
	if _, err := tools.Call(context.Background(), player, "u", botgw.ToolCall{ID: "c", Name: "teams", Arguments: `{"city":"York","limit":5}`}); err != nil {
		t.Fatal(err)
	}
	r := game.requests()[0]
	if r.Method != http.MethodGet || r.Query != "city=York&limit=5&season=1" || r.Body != "" {
		t.Errorf("request = %s ?%s body %q", r.Method, r.Query, r.Body)
	}
}

func TestToolFailuresAreErrorsForTheModel(t *testing.T) {
	game := newFakeGame(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/down":
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error":"database unavailable"}`)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		}
	})
	tools := newTools(t,
		Config{Name: "down", URL: game.URL + "/down"},
		Config{Name: "slow", URL: game.URL + "/slow", Timeout: 50 * time.Millisecond},
		Config{Name: "empty", URL: game.URL + "/empty"})
	cases := []struct{ name, args, wantErr, wantResult string }{
		{"down", `{}`, `status 500 Internal Server Error: {"error":"database unavailable"}`, ""},
		{"slow", `{}`, "the game server did not answer within 50ms", ""},
		{"nope", `{}`, `there is no tool named "nope"`, ""},
		{"down", `{"team":`, "the arguments are not a JSON object", ""},
		{"empty", ``, "", "status 204 No Content (no content)"},
	}
	for _, c := range cases {
		got, err := tools.Call(context.Background(), player, "u", botgw.ToolCall{ID: "c", Name: c.name, Arguments: c.args})
		if c.wantErr == "" {
			if err != nil || got != c.wantResult {
				t.Errorf("%s(%s) = %q, %v; want %q", c.name, c.args, got, err, c.wantResult)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.wantErr) {
			t.Errorf("%s(%s) error = %v, want %q", c.name, c.args, err, c.wantErr)
		}
		if strings.Contains(err.Error(), game.URL) {
			t.Errorf("%s: error %q shows the endpoint URL to the model", c.name, err)
		}
	}
	if n := len(game.requests()); n != 3 {
		t.Errorf("the game got %d requests, want 3 (bad arguments and unknown tools are not sent)", n)
	}
}

func TestLongToolAnswerIsCutWithANote(t *testing.T) {
	big := strings.Repeat("é", MaxResponse) // two bytes each
	game := newFakeGame(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, big) })
	tools := newTools(t, Config{Name: "big", URL: game.URL})
	got, err := tools.Call(context.Background(), player, "u", botgw.ToolCall{ID: "c", Name: "big"})
	if err != nil {
		t.Fatal(err)
	}
	body, note, ok := strings.Cut(got, "\n[botgw: ")
	if !ok || !strings.Contains(note, "cut here") {
		t.Fatalf("no truncation note at the end of a %d-byte answer", len(got))
	}
	if len(body) > MaxResponse || len(body) < MaxResponse-1 || !json.Valid([]byte(`"`+body+`"`)) {
		t.Errorf("kept %d bytes (valid UTF-8: %v), want about %d", len(body), json.Valid([]byte(`"`+body+`"`)), MaxResponse)
	}
}

func TestValidateToolsNamesKeyPaths(t *testing.T) {
	tools := []Config{
		{Name: "ok", URL: "https://game.example/api"},
		{Name: "ok", URL: "/relative"},
		{Name: "has space", URL: "https://game.example", Method: "DELETE", Timeout: -time.Second,
			Parameters: map[string]any{"type": "string"}},
	}
	err := Validate(tools)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"tools[1].name: \"ok\" is declared twice", "tools[1].url:", "tools[2].name:",
		"tools[2].method:", "tools[2].timeout:", "tools[2].parameters: want a JSON Schema with type: object"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors do not contain %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "tools[0]") {
		t.Errorf("a valid tool was reported: %v", err)
	}
}
