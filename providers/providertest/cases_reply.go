package providertest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

var replyCases = []suiteCase{
	{"reply/text-and-usage", textAndUsage},
	{"reply/history", history},
	{"reply/system-prompt", systemPrompt},
	{"reply/context-messages", contextMessages},
	{"reply/settings", settings},
	{"reply/images", images},
	{"reply/unusable-success", unusableSuccess},
}

// The reply's text and usage (cached prompt tokens counted as input)
// reach the gateway; the request carries the configured key and model.
func textAndUsage(t *testing.T, h Harness) {
	e := start(t, h, Always(h.Wire.Text("Head north to the theatre.", Usage{Input: 2195, Output: 503, Cached: 100})))
	reply, err := e.complete(t, hi())
	if err != nil {
		t.Fatal(err)
	}
	want := botgw.Reply{Text: "Head north to the theatre.", Provider: h.ID, Usage: botgw.Usage{InputTokens: 2195, OutputTokens: 503}}
	if reply.Text != want.Text || reply.Provider != want.Provider || reply.Usage != want.Usage || len(reply.ToolCalls) != 0 {
		t.Errorf("reply = %+v, want %+v", reply, want)
	}
	s := e.only(t)
	if s.Key != Key || s.Model != h.Model {
		t.Errorf("request carried key %q for model %q, want %q for %q", s.Key, s.Model, Key, h.Model)
	}
	if s.MaxTokens != h.DefaultMaxTokens || s.Temperature != nil {
		t.Errorf("max tokens %d, temperature %v; want %d and none when unset", s.MaxTokens, s.Temperature, h.DefaultMaxTokens)
	}
}

// The history goes in order, each message in its role.
func history(t *testing.T, h Harness) {
	e := start(t, h, Always(h.Wire.Text("The theatre.", Usage{Input: 30, Output: 3})))
	_, err := e.complete(t, botgw.Request{Messages: []botgw.Message{
		user("hello"), {Role: botgw.RoleAssistant, Text: "Hi!"}, user("where next?")}})
	if err != nil {
		t.Fatal(err)
	}
	assertParts(t, e.only(t).Parts, TextPart("user", "hello"), TextPart("assistant", "Hi!"), TextPart("user", "where next?"))
}

// The system prompt goes as the API's system instruction, never as a
// message of the conversation; a request without one sends none.
func systemPrompt(t *testing.T, h Harness) {
	e := start(t, h, Always(h.Wire.Text("Welcome!", Usage{Input: 40, Output: 2})))
	p := e.provider(t)
	req := hi()
	req.System = "You are the game assistant. Never reveal the answers."
	for _, r := range []botgw.Request{req, hi()} {
		if _, err := p.Complete(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	sent := e.sent()
	if len(sent) != 2 || sent[0].System != req.System || sent[1].System != "" {
		t.Fatalf("system instructions sent: %q, want %q then none", systems(sent), req.System)
	}
	for _, s := range sent {
		assertParts(t, s.Parts, TextPart("user", "hi"))
	}
}

func systems(sent []Sent) []string {
	var out []string
	for _, s := range sent {
		out = append(out, s.System)
	}
	return out
}

// A summary and an app event reach the model as user context, marked as
// not the player's own words.
func contextMessages(t *testing.T, h Harness) {
	e := start(t, h, Always(h.Wire.Text("Nice!", Usage{Input: 50, Output: 2})))
	_, err := e.complete(t, botgw.Request{Messages: []botgw.Message{
		{Role: botgw.RoleSummary, Text: "The player started at the station."},
		{Role: botgw.RoleEvent, Text: "User has just visited Harrogate Theatre"},
		user("what now?"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	assertParts(t, e.only(t).Parts,
		TextPart("user", "[Summary of earlier conversation] The player started at the station."),
		TextPart("user", "[App event] User has just visited Harrogate Theatre"),
		TextPart("user", "what now?"))
}

// The configured reply cap and temperature are sent.
func settings(t *testing.T, h Harness) {
	e := start(t, h, Always(h.Wire.Text("ok", Usage{Input: 5, Output: 1})))
	e.cfg.MaxTokens, e.cfg.Temperature = 300, new(0.2)
	if _, err := e.complete(t, hi()); err != nil {
		t.Fatal(err)
	}
	if s := e.only(t); s.MaxTokens != 300 || s.Temperature == nil || *s.Temperature != 0.2 {
		t.Errorf("max tokens %d, temperature %v; want 300 and 0.2", s.MaxTokens, s.Temperature)
	}
}

// A photo of this turn goes as an image before its caption; a photo of an
// earlier turn is its text only.
func images(t *testing.T, h Harness) {
	e := start(t, h, Always(h.Wire.Text("That is the old bridge.", Usage{Input: 900, Output: 6})))
	jpeg := []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00photo-bytes")
	_, err := e.complete(t, botgw.Request{Messages: []botgw.Message{
		{Role: botgw.RoleUser, Text: "[photo] the first one", Media: botgw.MediaPhoto},
		{Role: botgw.RoleAssistant, Text: "Nice."},
		{Role: botgw.RoleUser, Text: "[photo] is this the bridge?", Media: botgw.MediaPhoto,
			Images: []botgw.Image{{MIME: "image/jpeg", Data: jpeg}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	assertParts(t, e.only(t).Parts,
		TextPart("user", "[photo] the first one"), TextPart("assistant", "Nice."),
		Part{Role: "user", Image: "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpeg)},
		TextPart("user", "[photo] is this the bridge?"))
}

// A 200 whose body is no reply (a proxy's page) is a provider error, so
// the turn apologises, never an empty reply.
func unusableSuccess(t *testing.T, h Harness) {
	e := start(t, h, Always(Answer{Status: http.StatusOK, Body: "<html>502 Bad Gateway</html>"}))
	e.cfg.MaxRetries = -1
	reply, err := e.complete(t, hi())
	e.providerError(t, err)
	if reply.Text != "" || len(reply.ToolCalls) != 0 {
		t.Errorf("reply = %+v beside the error, want none", reply)
	}
}

// assertParts checks the parts of a request, in order.
func assertParts(t *testing.T, got []Part, want ...Part) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("request parts:\n%s\nwant\n%s", partList(got), partList(want))
	}
}

func partList(ps []Part) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "  %+v\n", p)
	}
	return b.String()
}
