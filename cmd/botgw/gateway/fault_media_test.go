package gateway

import (
	"fmt"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/wait"
)

// TestFaultKillMidDownloadAndTranscription: a replica is killed (SIGKILL)
// while it downloads a photo from the Bot API and while its voice note is
// at the transcription server. Both messages were acknowledged, so after
// the restart each is fetched again and answered exactly once, the model
// is asked once per message, and the history holds each once.
func TestFaultKillMidDownloadAndTranscription(t *testing.T) {
	stt := newTranscriptionAPI(t)
	sc := newScenario(t, sharedRedis(t), 1, func(cfg string) string {
		return cfg + fmt.Sprintf("media: {transcription: {kind: openai, base_url: %q, api_key: sk-stt}}\n", stt.URL)
	})
	t.Cleanup(sc.api.ReleaseFiles) // before the fake closes
	a := sc.replicas[0]
	chats := chatIDs(2)
	photoChat, voiceChat := chats[0], chats[1]
	sc.api.AddFile("ph", jpegPhoto(2000)) // small: the echo model repeats the data URL
	sc.api.AddFile("vn", oggVoice("I am at the old bridge"))
	sc.api.HoldFile("ph")
	stt.hold()

	deliver(t, sc.replicas, 0, tgMessage(photoChat, 1, map[string]any{"photo": tgPhoto("ph", 2011), "caption": "is this the bridge?"}))
	deliver(t, sc.replicas, 0, tgMessage(voiceChat, 1, map[string]any{"voice": tgVoice("vn", 4, 30)}))
	// the photo is mid-download and the voice note mid-transcription
	wait.Eventually(t, "the condition", func() bool { return sc.api.FileDownloads() == 2 && len(stt.Calls()) == 1 })
	a.kill(t)
	if n := len(sc.api.Delivered()); n != 0 {
		t.Fatalf("%d replies before the kill, want none", n)
	}
	sc.api.ReleaseFiles()
	stt.release()
	a.start(t)

	deadline := time.Now().Add(60 * time.Second)
	sc.settleChat(photoChat, []string{"[photo] is this the bridge?"}, deadline, true)
	sc.settleChat(voiceChat, []string{"[voice note] I am at the old bridge"}, deadline, true)
	quiesced(t, a.base, `botgw_media_total{kind="photo",outcome="ok"} 1`, `botgw_media_total{kind="voice",outcome="ok"} 1`)
	for _, c := range chats {
		if n := sentTo(sc.api, c); n != 1 {
			t.Errorf("chat %d got %d replies, want 1", c, n)
		}
	}
	if n := sc.llm.callsBy("sk-a"); n != 2 {
		t.Errorf("model called %d times, want once per message (never before the kill)", n)
	}
	if d, c := sc.api.FileDownloads(), len(stt.Calls()); d != 4 || c != 2 {
		t.Errorf("%d downloads and %d transcriptions, want each file fetched and the voice note transcribed again after the restart (4, 2)", d, c)
	}
}
