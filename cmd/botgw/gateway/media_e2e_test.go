package gateway

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/providertest"
	"github.com/botgw/botgw/state/redistest"
)

// mediaConfig is the built binary on real Redis with Telegram (the fake
// Bot API), a model at llm and transcription at stt.
func mediaConfig(redisURL, prefix, provider, stt, botAPI string) string {
	return fmt.Sprintf(`
redis: {url: %q, key_prefix: %s}
provider: %s
compaction: {strategy: none}
media:
  max_image_bytes: 100000
  transcription: {kind: openai, base_url: %q, api_key: sk-stt, max_seconds: 300}
channels:
  telegram: {token: %q, webhook_secret: %s, api_url: %q, rate_per_second: 1000, burst: 100}
admin: {token: %s}
log: {level: warn, format: text}
`, redisURL, prefix, provider, stt, e2eBotToken, faultSecret, botAPI, faultAdminToken)
}

// adminView is a chat as GET /v1/admin/chats/{chat} shows it.
type adminView struct {
	Size    int `json:"size_bytes"`
	History []botgw.Message
}

func mediaChat(t *testing.T, base string, chat int64) adminView {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/admin/chats/"+url.PathEscape(fmt.Sprintf("telegram:%d", chat)), nil)
	req.Header.Set("Authorization", "Bearer "+faultAdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v adminView
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("admin chat %d: %s %v", chat, res.Status, err)
	}
	return v
}

// A photo reaches the model as an image part on its turn only; a voice
// note as its transcript; what cannot be read (a 30 MB photo, a 20-minute
// voice note, a file that 404s, a transcription server answering 500)
// gets one short notice, stays in history as its marker, is counted, and
// never reaches the model.
func TestBinaryReadsPhotosAndVoiceNotes(t *testing.T) {
	redisURL := redistest.URL(t)
	api := newBotAPI(t)
	llm := providertest.NewOpenAI(t, providertest.Always(providertest.Completion("Noted.")))
	stt := newTranscriptionAPI(t)
	photo := jpegPhoto(40_000)
	api.AddFile("ph1", photo)
	api.AddLargeFile("big", 30<<20)
	api.AddGoneFile("gone")
	api.AddFile("v1", oggVoice("I am at the old bridge"))
	api.AddFile("vfail", oggVoice("FAIL"))
	provider := fmt.Sprintf("{kind: openai, base_url: %q, api_key: sk-test, model: gpt-4o-mini, max_retries: 0}", llm.URL+"/v1")
	base := runBinary(t, mediaConfig(redisURL, fmt.Sprintf("media%d", time.Now().UnixNano()), provider, stt.URL, api.URL))

	photoUpdate := tgMessage(501, 1, map[string]any{"photo": tgPhoto("ph1", len(photo)), "caption": "is this the bridge?"})
	for _, u := range []string{photoUpdate, photoUpdate, // the redelivery is a duplicate
		tgMessage(502, 1, map[string]any{"voice": tgVoice("v1", 4, 40)}),
		tgMessage(503, 1, map[string]any{"photo": []map[string]any{{"file_id": "big", "file_unique_id": "ubig", "width": 8000, "height": 6000}}}),
		tgMessage(504, 1, map[string]any{"voice": tgVoice("long", 1200, 2_000_000)}),
		tgMessage(505, 1, map[string]any{"photo": tgPhoto("gone", 1000)}),
		tgMessage(506, 1, map[string]any{"voice": tgVoice("vfail", 3, 30)}),
	} {
		if code := postUpdate(base, u); code != http.StatusOK {
			t.Fatalf("update answered %d, want 200", code)
		}
	}
	wait.Eventually(t, "the condition", func() bool {
		return len(textsTo(api, 501)) == 1 && len(textsTo(api, 502)) == 1 && len(textsTo(api, 506)) == 1 &&
			len(textsTo(api, 503)) == 1 && len(textsTo(api, 504)) == 1 && len(textsTo(api, 505)) == 1
	})
	if code := postUpdate(base, tgMessage(501, 2, map[string]any{"text": "and now?"})); code != http.StatusOK {
		t.Fatal(code)
	}
	wait.Eventually(t, "the condition", func() bool { return len(textsTo(api, 501)) == 2 })
	quiesced(t, base, `botgw_media_total{kind="photo",outcome="ok"} 1`, `botgw_media_total{kind="voice",outcome="ok"} 1`,
		`botgw_media_total{kind="photo",outcome="too_large"} 1`, `botgw_media_total{kind="photo",outcome="not_found"} 1`,
		`botgw_media_total{kind="voice",outcome="too_long"} 1`, `botgw_media_total{kind="voice",outcome="failed"} 1`)

	checkModelSawMedia(t, llm, photo)
	notices := map[int64]string{503: "too large", 504: "too long", 505: "couldn't open your photo", 506: "couldn't listen"}
	for chat, want := range notices {
		got := textsTo(api, chat)
		if len(got) != 1 || !strings.Contains(got[0], want) {
			t.Errorf("chat %d was sent %q, want one notice saying %q", chat, got, want)
		}
		h := mediaChat(t, base, chat).History
		if len(h) != 1 || h[0].Role != botgw.RoleUser || (h[0].Text != "[photo]" && h[0].Text != "[voice note]") {
			t.Errorf("chat %d history %+v, want the message kept as its marker", chat, h)
		}
	}
	if calls := stt.Calls(); len(calls) != 4 || calls[0].Model != "gpt-4o-mini-transcribe" || calls[0].FileName != "voice.ogg" {
		t.Errorf("transcription calls %+v, want the voice note, then the failing one three times (two retries), as voice.ogg with the default model", calls)
	}
	if api.FileDownloads() != 4 || slices.ContainsFunc(api.CallsTo("getFile"), func(c channeltest.APICall) bool { return c.Params["file_id"] == "long" }) {
		t.Errorf("file downloads %d (want ph1, v1, gone, vfail); the 20-minute voice note must not be fetched", api.FileDownloads())
	}
}

// checkModelSawMedia: the photo went to the model as an image_url data
// URL on its turn and as "[photo]" text after; the voice note as its
// transcript.
func checkModelSawMedia(t *testing.T, llm *providertest.OpenAI, photo []byte) {
	t.Helper()
	calls := llm.Calls()
	if len(calls) != 3 {
		t.Fatalf("model called %d times, want 3 (photo, voice note, follow-up): nothing unreadable reaches it", len(calls))
	}
	dataURL := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(photo)
	var withImage, voice, followUp bool
	for _, c := range calls {
		raw := string(c.Raw)
		msgs := c.Body.Messages
		last := msgs[len(msgs)-1]
		switch {
		case strings.Contains(raw, `"image_url"`):
			withImage = strings.Contains(raw, dataURL) && strings.Contains(raw, `"text":"[photo] is this the bridge?"`)
		case last.Text() == "[voice note] I am at the old bridge":
			voice = true
		case last.Text() == "and now?":
			followUp = slices.ContainsFunc(msgs, func(m providertest.OpenAIMessage) bool { return m.Text() == "[photo] is this the bridge?" })
		}
	}
	if !withImage || !voice || !followUp {
		t.Errorf("image part on its turn %v, transcript as the player's words %v, photo as text later %v", withImage, voice, followUp)
	}
}

// With Claude, a photo goes out as a base64 image block before the
// caption's text block.
func TestBinarySendsPhotosToClaude(t *testing.T) {
	redisURL := redistest.URL(t)
	api := newBotAPI(t)
	llm := providertest.NewAnthropic(t, providertest.Always(providertest.AnthropicText("That is the old bridge.")))
	photo := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR-photo-bytes")
	api.AddFile("ph1", photo)
	provider := fmt.Sprintf("{kind: anthropic, base_url: %q, api_key: sk-ant-test, model: claude-haiku-4-5, max_retries: 0}", llm.URL)
	base := runBinary(t, mediaConfig(redisURL, fmt.Sprintf("media%d", time.Now().UnixNano()), provider, "http://127.0.0.1:9/v1", api.URL))
	if code := postUpdate(base, tgMessage(601, 1, map[string]any{"photo": tgPhoto("ph1", 5000), "caption": "is this it?"})); code != http.StatusOK {
		t.Fatal(code)
	}
	wait.Eventually(t, "the condition", func() bool { return len(textsTo(api, 601)) == 1 })
	calls := llm.Calls()
	if len(calls) != 1 {
		t.Fatalf("Claude called %d times, want 1", len(calls))
	}
	msgs := calls[0].Body.Messages
	blocks := msgs[len(msgs)-1].Content
	if len(blocks) != 2 || blocks[0].Type != "image" || blocks[0].Source == nil ||
		blocks[0].Source.MediaType != "image/png" || blocks[0].Source.Data != base64.StdEncoding.EncodeToString(photo) ||
		blocks[1].Text != "[photo] is this it?" {
		t.Errorf("Claude's last message = %+v, want a base64 PNG image block, then the caption", blocks)
	}
}
