package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/media"
	"github.com/botgw/botgw/providers/openai"
)

// With -media, one message in five is a photo or a voice note (taking
// turns), fetched from the fake Bot API with getFile and the file URL;
// voice notes go to a fake transcription server answering after
// -transcription-latency. Text turns' latency is reported on its own.

// photoBytes and voiceBytes are what the fake Bot API serves: a 60 KB
// JPEG and a 10 KB Ogg recording.
var (
	photoBytes = append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), bytes.Repeat([]byte{0x42}, 60<<10)...)
	voiceBytes = append([]byte("OggS\x00\x02"), bytes.Repeat([]byte{0x17}, 10<<10)...)
)

// isMedia reports whether a chat's message m is a photo or voice note.
func isMedia(o options, m int) bool { return o.media && m%5 == 4 }

// mediaUpdate is a photo with a caption or a voice note, by turns.
func mediaUpdate(updateID, chat int64, msg int) []byte {
	fields := fmt.Sprintf(`"photo":[{"file_id":"p%d","file_unique_id":"up%d","file_size":%d,"width":1280,"height":960}],"caption":"Is this the place?"`,
		updateID, updateID, len(photoBytes))
	if (updateID/5)%2 == 1 {
		fields = fmt.Sprintf(`"voice":{"file_id":"v%d","file_unique_id":"uv%d","duration":4,"mime_type":"audio/ogg","file_size":%d}`,
			updateID, updateID, len(voiceBytes))
	}
	return fmt.Appendf(nil, `{"update_id":%d,"message":{"message_id":%d,"date":%d,`+
		`"chat":{"id":%d,"type":"private","first_name":"Player"},`+
		`"from":{"id":%d,"is_bot":false,"first_name":"Player"},%s}}`,
		updateID, msg, time.Now().Unix(), chat, chat, fields)
}

// serveFiles answers getFile and GET /file/bot<token>/<path> like the Bot
// API; ok is false for any other request.
func serveFiles(w http.ResponseWriter, r *http.Request, method string) bool {
	if path, isFile := strings.CutPrefix(r.URL.Path, "/file/bot"+benchToken+"/"); isFile {
		data := photoBytes
		if strings.HasPrefix(path, "v") {
			data = voiceBytes
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(data)
		return true
	}
	if method != "getFile" {
		return false
	}
	_ = r.ParseMultipartForm(1 << 20)
	id := r.FormValue("file_id")
	size := len(photoBytes)
	if strings.HasPrefix(id, "v") {
		size = len(voiceBytes)
	}
	fmt.Fprintf(w, `{"ok":true,"result":{"file_id":%q,"file_unique_id":"u%s","file_size":%d,"file_path":"%s.bin"}}`, id, id, size, id)
	return true
}

// transcriptionServer is POST /v1/audio/transcriptions answering after
// latency, as OpenAI's API does ({"text": ...}).
func transcriptionServer(latency time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"text":"I am at the clock tower, where now?"}`)
	})
}

// mediaReader reads photos and voice notes for the bench's turns: the
// Telegram adapter fetches, the fake server at sttURL transcribes, at most
// concurrency at once (0: the reader's default).
func mediaReader(tg botgw.Channel, sttURL string, concurrency int) (*media.Reader, error) {
	tr, err := openai.NewTranscriber(openai.Config{BaseURL: sttURL + "/v1", APIKey: "sk-bench"})
	if err != nil {
		return nil, fmt.Errorf("transcriber: %w", err)
	}
	return media.New(media.Config{Images: true, Concurrency: concurrency}, media.Deps{
		Fetchers:    map[string]botgw.MediaFetcher{tg.Name(): tg.(botgw.MediaFetcher)},
		Transcriber: tr,
	}), nil
}

// startTranscription serves the fake transcription server when -media is on.
func startTranscription(o *options) (stop func(), err error) {
	if !o.media {
		return func() {}, nil
	}
	base, stop, err := serveLoopback(transcriptionServer(o.transcriptionLatency))
	o.sttURL = base
	return stop, err
}
