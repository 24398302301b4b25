package channeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// botFile is a file the fake Bot API holds: what getFile says of it and
// what GET /file/bot<token>/<path> serves.
type botFile struct {
	path string
	data []byte
	size int  // reported file_size (len(data) unless set apart)
	gone bool // getFile answers, the download is 404 (an expired path)
	// hold, when set, keeps the download waiting until it is closed or
	// the client goes away (HoldFile).
	hold chan struct{}
	// movedTo, when set, is where the download redirects (AddMovedFile).
	movedTo string
}

// maxBotFile is the Bot API's download limit: getFile refuses larger files.
const maxBotFile = 20 << 20

// AddFile makes getFile know id and the file URL serve data.
func (f *BotAPI) AddFile(id string, data []byte) {
	f.addFile(id, botFile{data: data, size: len(data)})
}

// AddLargeFile makes getFile report id with size bytes (over 20 MB it
// refuses it, as Telegram does) without holding them.
func (f *BotAPI) AddLargeFile(id string, size int) { f.addFile(id, botFile{size: size}) }

// AddGoneFile makes getFile answer for id while the download is 404.
func (f *BotAPI) AddGoneFile(id string) { f.addFile(id, botFile{size: 1000, gone: true}) }

// AddMovedFile makes getFile know id and its download redirect (302) to
// url, as a file server behind a CDN does.
func (f *BotAPI) AddMovedFile(id, url string) { f.addFile(id, botFile{size: 1000, movedTo: url}) }

func (f *BotAPI) addFile(id string, bf botFile) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.files == nil {
		f.files = map[string]*botFile{}
	}
	bf.path = fmt.Sprintf("photos/file_%d.bin", len(f.files))
	f.files[id] = &bf
}

// HoldFile makes downloads of file id wait, after they are counted, until
// ReleaseFiles or until the client goes away (a gateway killed
// mid-download).
func (f *BotAPI) HoldFile(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if bf := f.files[id]; bf != nil && bf.hold == nil {
		bf.hold = make(chan struct{})
	}
}

// ReleaseFiles lets every held download go on.
func (f *BotAPI) ReleaseFiles() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, bf := range f.files {
		if bf.hold != nil {
			close(bf.hold)
			bf.hold = nil
		}
	}
}

// FileDownloads counts GETs of file URLs.
func (f *BotAPI) FileDownloads() int { return len(f.CallsTo("GET /file")) }

// getFile answers like the Bot API; f.mu is held.
func (f *BotAPI) getFile(p map[string]string) Reply {
	bf, ok := f.files[p["file_id"]]
	switch {
	case !ok:
		return Reply{400, `{"ok":false,"error_code":400,"description":"Bad Request: invalid file_id"}`}
	case bf.size > maxBotFile:
		return Reply{400, `{"ok":false,"error_code":400,"description":"Bad Request: file is too big"}`}
	}
	res, _ := json.Marshal(map[string]any{"file_id": p["file_id"], "file_unique_id": "u" + p["file_id"],
		"file_size": bf.size, "file_path": bf.path})
	return Reply{200, `{"ok":true,"result":` + string(res) + `}`}
}

// serveFile serves GET /file/bot<token>/<file_path>.
func (f *BotAPI) serveFile(w http.ResponseWriter, r *http.Request, path string) {
	f.record(APICall{Method: "GET /file", Params: map[string]string{"path": path}})
	f.mu.Lock()
	var found *botFile
	var hold chan struct{}
	for _, bf := range f.files {
		if bf.path == path && !bf.gone && (bf.data != nil || bf.movedTo != "") {
			found, hold = bf, bf.hold
		}
	}
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	if found == nil {
		http.Error(w, `{"ok":false,"error_code":404,"description":"Not Found"}`, http.StatusNotFound)
		return
	}
	if found.movedTo != "" {
		http.Redirect(w, r, found.movedTo, http.StatusFound)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = w.Write(found.data)
}

// filePath is the file path of a GET /file/bot<token>/<path> request.
func (f *BotAPI) filePath(r *http.Request) (string, bool) {
	if r.Method != http.MethodGet {
		return "", false
	}
	return strings.CutPrefix(r.URL.Path, "/file/bot"+f.Token+"/")
}
