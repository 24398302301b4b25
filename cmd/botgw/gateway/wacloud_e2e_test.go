package gateway

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/providertest"
	"github.com/botgw/botgw/state/redistest"
)

const (
	waPhone  = "109876543210"
	waToken  = "EAAG-e2e-token"
	waSecret = "wa-app-secret"
	waVerify = "wa-verify"
)

// waConfig is the built binary on real Redis with the WhatsApp Cloud API
// channel on graph, the model at llm, transcription at stt.
func waConfig(redisURL, llm, stt, graph string, template bool) string {
	tpl := ""
	if template {
		tpl = ", template: {name: game_update, language: en}"
	}
	return fmt.Sprintf(`
redis: {url: %q, key_prefix: wa%d}
provider: {kind: openai, base_url: %q, api_key: sk-test, model: gpt-4o-mini, max_retries: 0}
compaction: {strategy: none}
media:
  max_image_bytes: 100000
  transcription: {kind: openai, base_url: %q, api_key: sk-stt, max_seconds: 300}
channels:
  whatsapp_cloud: {phone_number_id: %q, access_token: %q, app_secret: %q, verify_token: %q, api_url: %q, rate_per_second: 1000%s}
events: {secret: %s}
admin: {token: %s}
log: {level: warn, format: text}
`, redisURL, time.Now().UnixNano(), llm+"/v1", stt, waPhone, waToken, waSecret, waVerify, graph, tpl, eventsSecret, faultAdminToken)
}

// postWA posts a webhook body signed with secret and returns the status.
func postWA(base, secret string, body []byte) int {
	return e2e.Post(base+"/webhooks/whatsapp_cloud", "application/json", string(body), "X-Hub-Signature-256", channeltest.WASignature(secret, body))
}

func waText(from, id, text string, at time.Time) []byte {
	return channeltest.WAHook(waPhone, []map[string]any{channeltest.WAMessage(from, id, at, "text", map[string]any{"body": text})}, nil)
}

func waOK(t *testing.T, base string, body []byte) {
	t.Helper()
	if code := postWA(base, waSecret, body); code != http.StatusOK {
		t.Fatalf("webhook answered %d, want 200", code)
	}
}

// textsOf is what the fake Graph API took for wa_id to: "type:text".
func textsOf(g *channeltest.GraphAPI, to string) []string {
	var out []string
	for _, m := range g.SentTo(to) {
		out = append(out, fmt.Sprint(m["type"])+":"+channeltest.GraphText(m))
	}
	return out
}

// The Cloud API channel end to end: handshake, signatures, text, a photo
// the model sees, a voice note it reads transcribed, a location, a tap,
// read marks, a duplicate answered once, a media id that 404s.
func TestBinaryWhatsAppCloud(t *testing.T) {
	redisURL := redistest.URL(t)
	graph := channeltest.NewGraphAPI(t, waToken)
	llm := providertest.NewOpenAI(t, providertest.Always(providertest.Completion("Noted.")))
	stt := newTranscriptionAPI(t)
	photo := jpegPhoto(4000)
	graph.AddFile("ph1", photo)
	graph.AddFile("v1", oggVoice("I am at the old bridge"))
	base := runBinary(t, waConfig(redisURL, llm.URL, stt.URL, graph.URL, true))

	res, err := http.Get(base + "/webhooks/whatsapp_cloud?hub.mode=subscribe&hub.verify_token=" + waVerify + "&hub.challenge=42424242")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(got) != "42424242" {
		t.Errorf("handshake: %d %q, want 200 and the challenge", res.StatusCode, got)
	}
	now := time.Now()
	if code := postWA(base, "forged", waText("447700900001", "wamid.forged", "hi", now)); code != http.StatusUnauthorized {
		t.Errorf("forged signature: %d, want 401", code)
	}
	hello := waText("447700900002", "wamid.t1", "hello", now)
	waOK(t, base, hello)
	waOK(t, base, hello) // Meta redelivers
	waOK(t, base, channeltest.WAHook(waPhone, []map[string]any{channeltest.WAMessage("447700900003", "wamid.p1", now, "image", map[string]any{"id": "ph1", "mime_type": "image/jpeg", "caption": "is this the bridge?"})}, nil))
	waOK(t, base, channeltest.WAHook(waPhone, []map[string]any{channeltest.WAMessage("447700900004", "wamid.v1", now, "audio", map[string]any{"id": "v1", "mime_type": "audio/ogg; codecs=opus", "voice": true})}, nil))
	waOK(t, base, channeltest.WAHook(waPhone, []map[string]any{channeltest.WAMessage("447700900005", "wamid.l1", now, "location", map[string]any{"latitude": 53.99212, "longitude": -1.54181, "name": "Harrogate Theatre"})}, nil))
	waOK(t, base, channeltest.WAHook(waPhone, []map[string]any{channeltest.WAMessage("447700900006", "wamid.g1", now, "image", map[string]any{"id": "gone", "mime_type": "image/jpeg"})}, nil))
	wait.Eventually(t, "a reply to each player", func() bool {
		for _, p := range []string{"2", "3", "4", "5", "6"} {
			if len(graph.SentTo("44770090000"+p)) == 0 {
				return false
			}
		}
		return true
	})
	quiesced(t, base, `botgw_inbound_total{channel="whatsapp_cloud",outcome="duplicate"} 1`)
	if got := textsOf(graph, "447700900002"); len(got) != 1 || got[0] != "text:Noted." {
		t.Errorf("hello answered %q, want one text reply", got)
	}
	if got := textsOf(graph, "447700900001"); len(got) != 0 {
		t.Errorf("the forged message was answered: %q", got)
	}
	if got := textsOf(graph, "447700900006"); len(got) != 1 || !strings.Contains(got[0], "couldn't open your photo") {
		t.Errorf("a media id that 404s: %q, want the notice", got)
	}
	checkWAModelInput(t, llm, photo)
	if stt.Calls() == nil {
		t.Error("the voice note was not transcribed")
	}
	reads := map[string]bool{}
	for _, r := range graph.Reads() {
		reads[fmt.Sprint(r["message_id"])] = true
	}
	if !reads["wamid.t1"] || !reads["wamid.p1"] {
		t.Errorf("read marks %v, want the messages marked read", reads)
	}
}

// checkWAModelInput: the photo reached the model as an image, the voice
// note as its transcript, the location as coordinates and its name.
func checkWAModelInput(t *testing.T, llm *providertest.OpenAI, photo []byte) {
	t.Helper()
	dataURL := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(photo)
	var image, voice, place bool
	for _, c := range llm.Calls() {
		raw := string(c.Raw)
		image = image || strings.Contains(raw, dataURL)
		voice = voice || strings.Contains(raw, "[voice note] I am at the old bridge")
		place = place || (strings.Contains(raw, "53.99212, -1.54181") && strings.Contains(raw, "Harrogate Theatre"))
	}
	if !image || !voice || !place {
		t.Errorf("the model saw the photo %v, the transcript %v, the location %v", image, voice, place)
	}
}

// Choices go out as reply buttons and a tap comes back as the label.
func TestBinaryWhatsAppCloudTaps(t *testing.T) {
	redisURL := redistest.URL(t)
	graph := channeltest.NewGraphAPI(t, waToken)
	llm := providertest.NewOpenAI(t, providertest.Always(providertest.Completion("Noted.")))
	base := runBinary(t, waConfig(redisURL, llm.URL, "http://127.0.0.1:9/v1", graph.URL, true))
	const p = "447700900010"
	waOK(t, base, waText(p, "wamid.a1", "hi", time.Now()))
	wait.Eventually(t, "the first reply", func() bool { return len(graph.SentTo(p)) == 1 })
	if code := postEvent(t, base, `{"chat":"whatsapp_cloud:`+p+`","text":"the ferry leaves soon","respond":true,"choices":["Ferry","Bridge"]}`); code != 202 && code != 200 {
		t.Fatalf("event: %d", code)
	}
	wait.Eventually(t, "the offer", func() bool { return len(graph.SentTo(p)) == 2 })
	offer := graph.SentTo(p)[1]
	in, _ := offer["interactive"].(map[string]any)
	if offer["type"] != "interactive" || in["type"] != "button" {
		t.Fatalf("offer sent as %v, want reply buttons", offer)
	}
	b, _ := json.Marshal(in["action"])
	var action struct {
		Buttons []struct{ Reply struct{ ID, Title string } }
	}
	json.Unmarshal(b, &action)
	tap := channeltest.WAMessage(p, "wamid.tap1", time.Now(), "interactive",
		map[string]any{"type": "button_reply", "button_reply": map[string]any{"id": action.Buttons[1].Reply.ID, "title": action.Buttons[1].Reply.Title}})
	waOK(t, base, channeltest.WAHook(waPhone, []map[string]any{tap}, nil))
	wait.Eventually(t, "the answer to the tap", func() bool { return len(graph.SentTo(p)) == 3 })
	calls := llm.Calls()
	last := calls[len(calls)-1].Body.Messages
	if got := last[len(last)-1].Text(); got != "Bridge" {
		t.Errorf("the model read the tap as %q, want the label", got)
	}
}

// The 24-hour window: a message 25 h old is answered by template, and so
// is an event asking for a reply; a failed status 131047 re-sends as the
// template, 130429 re-sends later; without a template the reply is a dead
// letter naming the window.
func TestBinaryWhatsAppCloudWindow(t *testing.T) {
	redisURL := redistest.URL(t)
	graph := channeltest.NewGraphAPI(t, waToken)
	llm := providertest.NewOpenAI(t, providertest.Always(providertest.Completion("Noted.")))
	base := runBinary(t, waConfig(redisURL, llm.URL, "http://127.0.0.1:9/v1", graph.URL, true))
	const old, fresh = "447700900020", "447700900021"
	waOK(t, base, waText(old, "wamid.old1", "are you there?", time.Now().Add(-25*time.Hour)))
	wait.Eventually(t, "the late reply", func() bool { return len(graph.SentTo(old)) == 1 })
	if got := textsOf(graph, old); got[0] != "template:Noted." {
		t.Errorf("reply to a 25 h old message: %q, want the template", got)
	}
	waOK(t, base, waText(fresh, "wamid.f1", "hi", time.Now()))
	wait.Eventually(t, "the reply", func() bool { return len(graph.SentTo(fresh)) == 1 })
	wamid := fmt.Sprint(graph.SentTo(fresh)[0]["wamid"])
	failed := func(code int) []byte {
		return channeltest.WAHook(waPhone, nil, []map[string]any{{"id": wamid, "status": "failed", "timestamp": "1", "recipient_id": fresh,
			"errors": []map[string]any{{"code": code, "title": "failed"}}}})
	}
	waOK(t, base, failed(131047))
	wait.Eventually(t, "the template", func() bool { return len(graph.SentTo(fresh)) == 2 })
	waOK(t, base, failed(131047)) // Meta redelivers: one template only
	waOK(t, base, failed(130429))
	wait.Eventually(t, "the retry", func() bool { return len(graph.SentTo(fresh)) == 3 })
	unknown := channeltest.WAHook(waPhone, nil, []map[string]any{{"id": "wamid.nobody", "status": "failed", "recipient_id": fresh}})
	waOK(t, base, unknown)
	quiesced(t, base)
	if got := textsOf(graph, fresh); len(got) != 3 || got[1] != "template:Noted." || got[2] != "text:Noted." {
		t.Errorf("sent %q, want the reply, the template after 131047 once, the text again after 130429", got)
	}
	if body := []byte(`{"object":"whatsapp_business_account"}`); postWA(base, waSecret, body) != http.StatusBadRequest {
		t.Error("a body without entry: want 400")
	}
	if big := waText(fresh, "wamid.big", strings.Repeat("a", 5<<20), time.Now()); postWA(base, waSecret, big) != http.StatusRequestEntityTooLarge {
		t.Error("a 5 MB text: want 413")
	}

	noTemplate := runBinary(t, waConfig(redisURL, llm.URL, "http://127.0.0.1:9/v1", graph.URL, false))
	const lapsed = "447700900022"
	waOK(t, noTemplate, waText(lapsed, "wamid.old2", "still there?", time.Now().Add(-25*time.Hour)))
	var dead []map[string]any
	wait.Eventually(t, "the dead letter", func() bool {
		dead = waDeadLetters(t, noTemplate)
		return len(dead) == 1
	})
	if !strings.Contains(fmt.Sprint(dead[0]["reason"]), "outside WhatsApp's 24-hour window") || len(graph.SentTo(lapsed)) != 0 {
		t.Errorf("dead letter %v, sent %q: want the reply kept, naming the window", dead[0], textsOf(graph, lapsed))
	}
}

func waDeadLetters(t *testing.T, base string) []map[string]any {
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/admin/dead-letters", nil)
	req.Header.Set("Authorization", "Bearer "+faultAdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v struct {
		Items []map[string]any `json:"items"`
	}
	b, _ := io.ReadAll(res.Body)
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&v); err != nil {
		t.Fatalf("dead letters: %s %s", res.Status, b)
	}
	return v.Items
}
