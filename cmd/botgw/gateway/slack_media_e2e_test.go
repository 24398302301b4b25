package gateway

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/providertest"
	"github.com/botgw/botgw/state/redistest"
)

// A photo and an audio clip shared in a Slack direct message are fetched
// from url_private_download with the bot token: the photo reaches the
// model as an image part, the clip as its transcript; a deleted file gets
// one notice and is kept in history as its marker.
func TestBinaryReadsSlackFiles(t *testing.T) {
	redisURL := redistest.URL(t)
	api := newSlackAPI(t, "xoxb-e2e")
	llm := providertest.NewOpenAI(t, providertest.Always(providertest.Completion("Noted.")))
	stt := newTranscriptionAPI(t)
	photo := jpegPhoto(30_000)
	shares := []string{
		string(channeltest.SlackFileShare("1700000070.000600", "is this the bridge?", api.AddFile("F0PHOTO01", "IMG_0042.jpg", "image/jpeg", photo, nil))),
		string(channeltest.SlackFileShare("1700000071.000600", "", api.AddFile("F0CLIP001", "audio_message.webm", "audio/webm",
			oggVoice("I am at the old bridge"), map[string]any{"subtype": "slack_audio", "duration_ms": 4200, "media_display_type": "audio"}))),
		string(channeltest.SlackFileShare("1700000072.000600", "", api.AddGoneFile("F0GONE001", "gone.jpg", "image/jpeg", 2000))),
	}
	base := runBinary(t, fmt.Sprintf(`
redis: {url: %q, key_prefix: slackmedia%d}
provider: {kind: openai, base_url: %q, api_key: sk-test, model: gpt-4o-mini, max_retries: 0}
compaction: {strategy: none}
media:
  max_image_bytes: 100000
  transcription: {kind: openai, base_url: %q, api_key: sk-stt}
channels:
  slack: {bot_token: xoxb-e2e, signing_secret: e2e-signing-secret, api_url: %s}
log: {level: warn, format: text}
`, redisURL, time.Now().UnixNano(), llm.URL+"/v1", stt.URL, api.URL))
	for i, body := range shares {
		if code := postSlack(base, body, "e2e-signing-secret", time.Now(), ""); code != http.StatusOK {
			t.Fatalf("file_share answered %d, want 200", code)
		}
		wait.Eventually(t, "the condition", func() bool { return len(api.Sent()) == i+1 })
	}
	quiesced(t, base, `botgw_media_total{kind="photo",outcome="ok"} 1`, `botgw_media_total{kind="voice",outcome="ok"} 1`,
		`botgw_media_total{kind="photo",outcome="not_found"} 1`)
	if sent := api.Sent(); !strings.Contains(sent[2], "couldn't open your photo") {
		t.Errorf("the deleted file was answered %q, want the notice", sent[2])
	}
	calls := llm.Calls()
	if len(calls) != 2 {
		t.Fatalf("model called %d times, want 2 (photo and clip; the deleted file never reaches it)", len(calls))
	}
	dataURL := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(photo)
	if raw := string(calls[0].Raw); !strings.Contains(raw, dataURL) || !strings.Contains(raw, `"text":"[photo] is this the bridge?"`) {
		t.Errorf("first model call lacks the photo as a data URL with its caption")
	}
	if msgs := calls[1].Body.Messages; msgs[len(msgs)-1].Text() != "[voice note] I am at the old bridge" {
		t.Errorf("second model call ends with %q, want the clip's transcript", msgs[len(msgs)-1].Text())
	}
	if c := stt.Calls(); len(c) != 1 || c[0].FileName != "voice.ogg" {
		t.Errorf("transcription calls %+v, want the clip once", c)
	}
	for _, d := range api.FileDownloads() {
		if d.Params["auth"] != "bot" {
			t.Errorf("file %s fetched without the bot token", d.Params["id"])
		}
	}
}
