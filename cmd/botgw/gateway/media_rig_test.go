package gateway

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/botgw/botgw/channels/channeltest"
)

// transcriptionAPI is a fake POST /v1/audio/transcriptions speaking
// OpenAI's wire format: a multipart form with "file" and "model", a JSON
// answer {"text": ...}. A recording whose bytes contain "FAIL" gets a 500.
type transcriptionAPI struct {
	URL   string
	mu    sync.Mutex
	calls []transcriptionCall
	held  chan struct{} // set: calls wait, after they are counted, until release
}

// hold makes the next calls wait until release or until the client goes
// away (a gateway killed mid-transcription).
func (f *transcriptionAPI) hold() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = make(chan struct{})
}

func (f *transcriptionAPI) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held != nil {
		close(f.held)
		f.held = nil
	}
}

type transcriptionCall struct {
	Model, FileName string
	Bytes           int
}

func newTranscriptionAPI(t *testing.T) *transcriptionAPI {
	f := &transcriptionAPI{}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	t.Cleanup(f.release) // before the server closes: cleanups run last first
	f.URL = srv.URL + "/v1"
	return f
}

func (f *transcriptionAPI) serve(w http.ResponseWriter, r *http.Request) {
	ct, ps, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if r.URL.Path != "/v1/audio/transcriptions" || ct != "multipart/form-data" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	form, err := multipart.NewReader(r.Body, ps["boundary"]).ReadForm(32 << 20)
	if err != nil || len(form.File["file"]) != 1 {
		http.Error(w, `{"error":{"message":"bad form"}}`, http.StatusBadRequest)
		return
	}
	fh := form.File["file"][0]
	file, _ := fh.Open()
	audio, _ := io.ReadAll(file)
	f.mu.Lock()
	f.calls = append(f.calls, transcriptionCall{Model: form.Value["model"][0], FileName: fh.Filename, Bytes: len(audio)})
	held := f.held
	f.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if bytes.Contains(audio, []byte("FAIL")) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":{"message":"The server had an error","type":"server_error"}}`))
		return
	}
	words := string(audio[bytes.IndexByte(audio, '|')+1:])
	_ = json.NewEncoder(w).Encode(map[string]string{"text": words})
}

func (f *transcriptionAPI) Calls() []transcriptionCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]transcriptionCall(nil), f.calls...)
}

// oggVoice is a recording the fake transcribes as words: Ogg bytes, then
// "|" and the words.
func oggVoice(words string) []byte { return []byte("OggS\x00\x02fake-opus|" + words) }

// jpegPhoto is a photo's bytes (a JPEG header and n bytes of data).
func jpegPhoto(n int) []byte {
	return append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), bytes.Repeat([]byte{0x42}, n)...)
}

// tgMessage is a private-chat message update from chat with the given
// fields (photo, voice, caption, text...).
func tgMessage(chat int64, msgID int, fields map[string]any) string {
	msg := map[string]any{"message_id": msgID, "date": 1732270000,
		"from": map[string]any{"id": chat, "is_bot": false, "first_name": "Player"},
		"chat": map[string]any{"id": chat, "type": "private", "first_name": "Player"}}
	for k, v := range fields {
		msg[k] = v
	}
	b, _ := json.Marshal(map[string]any{"update_id": chat*100 + int64(msgID), "message": msg})
	return string(b)
}

func tgPhoto(fileID string, size int) []map[string]any {
	return []map[string]any{
		{"file_id": fileID + "-thumb", "file_unique_id": "t" + fileID, "file_size": 900, "width": 90, "height": 67},
		{"file_id": fileID, "file_unique_id": "u" + fileID, "file_size": size, "width": 1280, "height": 960},
	}
}

func tgVoice(fileID string, seconds, size int) map[string]any {
	return map[string]any{"file_id": fileID, "file_unique_id": "u" + fileID, "duration": seconds, "mime_type": "audio/ogg", "file_size": size}
}

// textsTo is the texts the fake Bot API took for chat.
func textsTo(api *channeltest.BotAPI, chat int64) []string {
	var out []string
	for _, c := range api.Delivered() {
		if c.Params["chat_id"] == strconv.FormatInt(chat, 10) {
			out = append(out, c.Params["text"])
		}
	}
	return out
}
