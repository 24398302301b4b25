package media

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/botgw/botgw"
)

// voice fetches and transcribes a voice note or audio file. The
// transcript is the player's words, after the "[voice note]" marker.
func (r *Reader) voice(ctx context.Context, in botgw.Inbound) (botgw.Message, string) {
	m := *in.Media
	switch {
	case r.deps.Transcriber == nil:
		return botgw.Message{}, "off"
	case m.Seconds > r.cfg.MaxSeconds:
		return botgw.Message{}, "too_long"
	case m.Size > r.cfg.MaxAudioBytes:
		return botgw.Message{}, "too_large"
	}
	release, ok := r.acquire(ctx)
	if !ok {
		return botgw.Message{}, "failed"
	}
	defer release()
	data, outcome := r.fetch(ctx, in, m, r.cfg.MaxAudioBytes)
	if outcome != "ok" {
		return botgw.Message{}, outcome
	}
	text, err := r.transcribe(ctx, data, audioName(data, m.MIME))
	if err != nil {
		r.log.Warn("voice note not transcribed", "channel", in.Chat.Channel, "err", err)
		return botgw.Message{}, "failed"
	}
	if r.cfg.LogContent {
		r.log.Debug("voice note transcribed", "channel", in.Chat.Channel, "transcript", text)
	}
	words := strings.TrimSpace(text + "\n" + in.Text)
	return botgw.Message{Text: marked(botgw.MediaVoice, words), Media: botgw.MediaVoice}, "ok"
}

// transcribe runs one transcription within the attempt timeout; the
// transcriber retries failed calls itself (the SDK's backoff).
func (r *Reader) transcribe(ctx context.Context, audio []byte, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*r.cfg.Timeout)
	defer cancel()
	start := time.Now()
	text, err := r.deps.Transcriber.Transcribe(ctx, audio, name)
	r.log.Debug("transcription", "took", time.Since(start).Round(time.Millisecond), "bytes", len(audio))
	return text, err
}

// audioName is a file name whose extension tells the server the format:
// from the bytes where they say, else from the platform's MIME type.
func audioName(data []byte, mime string) string {
	sniffed, _, _ := strings.Cut(http.DetectContentType(data), ";")
	for _, t := range []string{sniffed, mime} {
		t, _, _ = strings.Cut(strings.TrimSpace(t), ";")
		if ext, ok := audioExt[t]; ok {
			return "voice." + ext
		}
	}
	return "voice.ogg" // Telegram and WhatsApp voice notes are Ogg Opus
}

var audioExt = map[string]string{
	"application/ogg": "ogg", "audio/ogg": "ogg", "audio/opus": "ogg",
	"audio/mpeg": "mp3", "audio/mp3": "mp3",
	"audio/mp4": "m4a", "audio/x-m4a": "m4a", "audio/m4a": "m4a", "audio/aac": "m4a", "video/mp4": "mp4",
	"audio/wave": "wav", "audio/wav": "wav", "audio/x-wav": "wav",
	"audio/webm": "webm", "video/webm": "webm",
	"audio/flac": "flac", "audio/x-flac": "flac",
}
