package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/state/redistest"
)

// choiceGateway runs the built binary on real Redis with extra (YAML) and
// app events and the admin API on.
func choiceGateway(t *testing.T, extra string) string {
	t.Helper()
	redisURL := redistest.URL(t)
	rnd := make([]byte, 4)
	_, _ = rand.Read(rnd)
	prefix := "choices" + hex.EncodeToString(rnd)
	t.Cleanup(func() { redistest.Drop(t, redisURL, prefix) }) // after the gateway stops
	return runBinary(t, fmt.Sprintf(`
redis: {url: %q, key_prefix: %s}
provider: {kind: fake}
events: {secret: %s}
admin: {token: %s}
%s`, redisURL, prefix, eventsSecret, opsToken, extra))
}

// chatHistory reads chat's history through the admin API.
func chatHistory(t *testing.T, base, chat string) []botgw.Message {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/admin/chats/"+url.PathEscape(chat), nil)
	req.Header.Set("Authorization", "Bearer "+opsToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v struct{ History []botgw.Message }
	if res.StatusCode == http.StatusOK {
		_ = json.NewDecoder(res.Body).Decode(&v)
	}
	return v.History
}

func players(h []botgw.Message) []botgw.Message {
	return slices.DeleteFunc(slices.Clone(h), func(m botgw.Message) bool { return m.Role != botgw.RoleUser })
}

// TestSlackTapsOverInteractivity: choices are an actions block; a forged
// or stale interactivity request is 401 and stores nothing; a signed tap
// is the player's words and gets a reply.
func TestSlackTapsOverInteractivity(t *testing.T) {
	api := newSlackAPI(t, "xoxb-e2e")
	base := choiceGateway(t, fmt.Sprintf(`channels:
  slack: {bot_token: xoxb-e2e, signing_secret: e2e-signing-secret, api_url: %s}
`, api.URL))
	const chat = "slack:D024BE91L"
	if code := postEvent(t, base, `{"chat":"`+chat+`","text":"The bridge is closed","respond":true,"choices":["Take the ferry","Walk"]}`); code != http.StatusAccepted {
		t.Fatalf("event with choices: %d", code)
	}
	wait.Eventually(t, "the condition", func() bool { return len(api.Sent()) == 1 })
	if got := api.Buttons(0); !slices.Equal(got, []string{"Take the ferry", "Walk"}) {
		t.Fatalf("buttons %q, want the event's choices", got)
	}
	tap := string(api.Tap(0, 1, "U061F7AUR", "13345224609.738474920.8088930838d88f008e0"))
	post := func(secret string, at time.Time) int {
		return postSlackTo(base+"/webhooks/slack/interactivity", "application/x-www-form-urlencoded", tap, secret, at)
	}
	if code := post("forged-secret", time.Now()); code != http.StatusUnauthorized {
		t.Errorf("forged interactivity request: %d, want 401", code)
	}
	if code := post("e2e-signing-secret", time.Now().Add(-6*time.Minute)); code != http.StatusUnauthorized {
		t.Errorf("stale interactivity request: %d, want 401", code)
	}
	quiesced(t, base)
	if got := players(chatHistory(t, base, chat)); len(got) != 0 || len(api.Sent()) != 1 {
		t.Fatalf("after refused taps: player messages %+v, %d posts; want nothing stored, nothing sent", got, len(api.Sent()))
	}
	if code := post("e2e-signing-secret", time.Now()); code != http.StatusOK {
		t.Fatalf("signed tap: %d, want 200", code)
	}
	wait.Eventually(t, "the condition", func() bool { return len(api.Sent()) == 2 })
	got := players(chatHistory(t, base, chat))
	if len(got) != 1 || got[0].Text != "Walk" || !got[0].Tap {
		t.Errorf("player messages %+v, want the tap as %q", got, "Walk")
	}
}

// TestWebChoicesAndTaps: the reply to an event asking for choices carries
// them to the page; the page's tap (the label as text) is a tap in the
// history.
func TestWebChoicesAndTaps(t *testing.T) {
	base := choiceGateway(t, "channels: {web: {}}\n")
	const chat = "web:9c3f0a6d2b7e4f18"
	if code := postEvent(t, base, `{"chat":"`+chat+`","text":"The bridge is closed","respond":true,"choices":["Take the ferry","Walk"],"ask_location":true}`); code != http.StatusAccepted {
		t.Fatalf("event with choices: %d", code)
	}
	var polled struct {
		Replies []struct {
			Text        string   `json:"text"`
			Choices     []string `json:"choices"`
			AskLocation bool     `json:"ask_location"`
		} `json:"replies"`
	}
	wait.Eventually(t, "the condition", func() bool {
		res, err := http.Get(base + "/v1/chat?chat=" + chat)
		if err != nil {
			return false
		}
		defer res.Body.Close()
		_ = json.NewDecoder(res.Body).Decode(&polled)
		return len(polled.Replies) > 0
	})
	if r := polled.Replies[0]; !slices.Equal(r.Choices, []string{"Take the ferry", "Walk"}) || !r.AskLocation {
		t.Fatalf("polled reply %+v, want the choices and ask_location", r)
	}
	status, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"`+chat+`","text":"Take the ferry"}`)
	if status != http.StatusOK || v["reply"] == "" {
		t.Fatalf("tap: %d %v", status, v)
	}
	if got := players(chatHistory(t, base, chat)); len(got) != 1 || !got[0].Tap || got[0].Text != "Take the ferry" {
		t.Errorf("player messages %+v, want the page's tap marked", got)
	}
	bc := `{"id":"round-2","chats":["` + chat + `"],"message":"Round 2 starts: where to?","choices":["Harbour","Castle"]}`
	if status, v := e2e.PostJSON(t, base+"/v1/broadcasts", bc, "Authorization", "Bearer "+eventsSecret); status != http.StatusAccepted {
		t.Fatalf("broadcast with choices: %d %v", status, v)
	}
	op := `{"text":"Sam here: pick one","operator":"Sam","choices":["Left","Right"]}`
	opURL := base + "/v1/admin/chats/" + url.PathEscape(chat) + "/messages"
	var offers [][]string // polling takes the replies: keep them
	wait.Eventually(t, "the condition", func() bool { offers = append(offers, pollWeb(t, base, chat).offers()...); return len(offers) > 0 })
	if status, v := e2e.PostJSON(t, opURL, op, "Authorization", "Bearer "+opsToken); status != http.StatusAccepted {
		t.Fatalf("operator message with choices: %d %v", status, v)
	}
	wait.Eventually(t, "the condition", func() bool { offers = append(offers, pollWeb(t, base, chat).offers()...); return len(offers) >= 2 })
	if !slices.Equal(offers[0], []string{"Harbour", "Castle"}) || !slices.Equal(offers[1], []string{"Left", "Right"}) {
		t.Errorf("polled choices %q, want the broadcast's then the operator's", offers)
	}
}

// TestChoicesValidationOnEveryRoute: 11 choices, a 65-character label and
// an empty label are 400 naming the field on every route taking choices.
func TestChoicesValidationOnEveryRoute(t *testing.T) {
	base := choiceGateway(t, "channels: {web: {}}\n")
	long := strings.Repeat("x", 65)
	eleven := `["1","2","3","4","5","6","7","8","9","10","11"]`
	bad := []struct{ choices, want string }{
		{eleven, "choices: at most 10"},
		{`["ok","` + long + `"]`, "choices[1]: label longer than 64"},
		{`["ok",""]`, "choices[1]: empty label"},
	}
	const chat = "web:5b1e0c9a7d3f2e64"
	routes := []struct {
		name, url, body string
		auth            []string
	}{
		{"events", "/v1/events", `{"chat":"` + chat + `","text":"x","respond":true,"choices":%s}`, []string{"Authorization", "Bearer " + eventsSecret}},
		{"broadcasts", "/v1/broadcasts", `{"id":"bc-%d","chats":["` + chat + `"],"message":"x","choices":%s}`, []string{"Authorization", "Bearer " + eventsSecret}},
		{"operator messages", "/v1/admin/chats/" + url.PathEscape(chat) + "/messages", `{"text":"x","operator":"ann","choices":%s}`, []string{"Authorization", "Bearer " + opsToken}},
	}
	for _, r := range routes {
		for i, b := range bad {
			body := fmt.Sprintf(r.body, b.choices)
			if r.name == "broadcasts" {
				body = fmt.Sprintf(r.body, i, b.choices)
			}
			status, v := e2e.PostJSON(t, base+r.url, body, r.auth...)
			if msg, _ := v["error"].(string); status != http.StatusBadRequest || !strings.Contains(msg, b.want) {
				t.Errorf("%s with %.40s: %d %v, want 400 naming %q", r.name, b.choices, status, v, b.want)
			}
		}
	}
	quiesced(t, base)
	if h := chatHistory(t, base, chat); len(h) != 0 {
		t.Errorf("refused requests left a history: %+v", h)
	}
}

func TestConfigCheckNamesTheBuiltinTools(t *testing.T) {
	check := func(yaml string) string {
		cfg, err := LoadConfig(e2e.WriteFile(t, yaml))
		if err = errors.Join(err, cfg.Validate()); err == nil {
			return ""
		}
		return err.Error()
	}
	tool := "tools: [{name: offer_choices, url: \"https://game.example.com/x\"}]\n"
	if out := check("provider: {kind: fake}\n" + tool); !strings.Contains(out, "tools[0].name: offer_choices is a built-in tool") {
		t.Errorf("a game tool named offer_choices passed:\n%s", out)
	}
	if out := check("provider: {kind: fake}\ntools_builtin: {offer_choices: false}\n" + tool); strings.Contains(out, "tools[0]") {
		t.Errorf("with the built-in off, the game's offer_choices was refused:\n%s", out)
	}
	if out := check("provider: {kind: fake}\ntools_builtin: {offer_choice: true}\n"); !strings.Contains(out, "tools_builtin.offer_choice") {
		t.Errorf("a misspelt key passed:\n%s", out)
	}
}
