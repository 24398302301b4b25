package channeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// slackTeam is the workspace of the fake's files (as auth.test says).
const slackTeam = "T061EG9R6"

// slackFile is a file the fake Slack holds.
type slackFile struct {
	data []byte
	gone bool // listed in the event, the download is 404 (deleted)
}

// AddFile makes the fake serve data as file id, the way files.slack.com
// serves url_private and url_private_download: only with the bot token
// as a Bearer header, else a redirect to the sign-in page. It returns the
// file as a message event's "files" entry shows it; fields adds to it or
// overrides it (duration_ms, subtype, size...).
func (f *SlackAPI) AddFile(id, name, mimetype string, data []byte, fields map[string]any) map[string]any {
	return f.addFile(id, name, mimetype, slackFile{data: data}, len(data), fields)
}

// AddGoneFile lists file id with size bytes while its download is 404, as
// for a file deleted after it was shared.
func (f *SlackAPI) AddGoneFile(id, name, mimetype string, size int) map[string]any {
	return f.addFile(id, name, mimetype, slackFile{gone: true}, size, nil)
}

// FailDownloads makes the next n file downloads answer 500.
func (f *SlackAPI) FailDownloads(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failFiles = n
}

// FileDownloads is every GET of a file, with its "id" and whether it
// carried the bot token ("auth": "bot", else "none").
func (f *SlackAPI) FileDownloads() []APICall { return f.CallsTo("GET /files-pri") }

func (f *SlackAPI) addFile(id, name, mimetype string, sf slackFile, size int, fields map[string]any) map[string]any {
	f.mu.Lock()
	if f.files == nil {
		f.files = map[string]*slackFile{}
	}
	f.files[id] = &sf
	f.mu.Unlock()
	base := strings.TrimSuffix(f.URL, "/api/")
	path := fmt.Sprintf("/files-pri/%s-%s/", slackTeam, id)
	file := map[string]any{"id": id, "created": 1700000070, "timestamp": 1700000070, "name": name, "title": name,
		"mimetype": mimetype, "filetype": strings.TrimPrefix(mimetype[strings.IndexByte(mimetype, '/')+1:], "x-"),
		"user": "U061F7AUR", "user_team": slackTeam, "mode": "hosted", "editable": false, "is_external": false,
		"external_type": "", "is_public": false, "size": size,
		"url_private": base + path + url.PathEscape(name), "url_private_download": base + path + "download/" + url.PathEscape(name),
		"permalink": "https://botgw-test.slack.com/files/U061F7AUR/" + id + "/" + name}
	for k, v := range fields {
		file[k] = v
	}
	return file
}

// serveFile serves GET /files-pri/<team>-<id>/[download/]<name> like
// files.slack.com: without the bot token a redirect to the sign-in page
// (whose redir is the file's path), a deleted file 404.
func (f *SlackAPI) serveFile(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/files-pri/"+slackTeam+"-")
	id, _, _ := strings.Cut(rest, "/")
	auth, token := "none", callToken(r, nil)
	if known, good := f.issued(token); (known && good) || (!known && token == f.BotToken) {
		auth = "bot"
	}
	f.record(APICall{Method: "GET /files-pri", Params: map[string]string{"id": id, "auth": auth}, Token: token})
	if auth != "bot" {
		http.Redirect(w, r, "/?redir="+url.QueryEscape(r.URL.Path), http.StatusFound)
		return
	}
	f.mu.Lock()
	sf, fail := f.files[id], f.failFiles > 0
	if fail {
		f.failFiles--
	}
	f.mu.Unlock()
	switch {
	case fail:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("<html><body>Internal Server Error</body></html>"))
	case sf == nil || sf.gone:
		http.Error(w, "File not found", http.StatusNotFound)
	default:
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(sf.data)
	}
}

// signIn is the workspace's sign-in page, where files.slack.com sends a
// request without a token.
func signIn(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte("<!DOCTYPE html><html><head><title>Sign in | Slack</title></head><body>Sign in to botgw test</body></html>"))
}

// SlackFileShare is the Events API body of a direct message in D024BE91L
// from U061F7AUR sharing files (entries from AddFile) with text, as Slack
// sends a file_share; ts is the message's ts and names the event.
func SlackFileShare(ts, text string, files ...map[string]any) []byte {
	body, _ := json.Marshal(map[string]any{
		"token": "XXYYZZ", "team_id": slackTeam, "api_app_id": "A0KRD7HC3", "type": "event_callback",
		"event_id": "Ev" + strings.ReplaceAll(ts, ".", ""), "event_time": 1700000070,
		"event": map[string]any{"type": "message", "subtype": "file_share", "text": text, "files": files,
			"upload": false, "user": "U061F7AUR", "display_as_bot": false, "ts": ts,
			"channel": "D024BE91L", "event_ts": ts, "channel_type": "im"},
	})
	return body
}
