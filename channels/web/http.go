package web

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/botgw/botgw"
)

//go:embed page/index.html
var page embed.FS

// maxText bounds one web message, in characters.
const maxText = 4000

type chatRequest struct {
	Chat string `json:"chat"`
	Text string `json:"text"`
	ID   string `json:"id"` // optional idempotency key from the client
}

type chatResponse struct {
	Reply    string   `json:"reply,omitempty"`
	Pending  bool     `json:"pending,omitempty"`
	Messages []string `json:"messages,omitempty"`
}

// Page serves the chat page.
func Page() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := page.ReadFile("page/index.html")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(b)
	})
}

// ChatHandler serves POST /v1/chat (send a message, wait for the reply) and
// GET /v1/chat?chat=web:x (replies that arrived with nobody waiting).
func (a *Adapter) ChatHandler(deliver botgw.Deliver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			a.poll(w, r)
			return
		}
		a.post(w, r, deliver)
	})
}

func (a *Adapter) post(w http.ResponseWriter, r *http.Request, deliver botgw.Deliver) {
	req, k, err := parseChat(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	replies, cancel := a.wait(k)
	defer cancel()
	id := req.ID
	if id == "" {
		id = newID()
	}
	in := botgw.Inbound{Chat: k, Kind: botgw.KindText, ID: id, UserID: k.ID, Text: req.Text, At: time.Now()}
	if err := deliver(r.Context(), in); err != nil {
		a.log.Warn("web message not stored", "chat", k, "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "could not store the message; try again"})
		return
	}
	select {
	case m := <-replies:
		writeJSON(w, http.StatusOK, chatResponse{Reply: m.Text})
	case <-time.After(a.cfg.ReplyTimeout):
		writeJSON(w, http.StatusAccepted, chatResponse{Pending: true})
	case <-r.Context().Done():
	}
}

func (a *Adapter) poll(w http.ResponseWriter, r *http.Request) {
	k, err := webKey(r.URL.Query().Get("chat"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	var res chatResponse
	for _, m := range a.take(k) {
		res.Messages = append(res.Messages, m.Text)
	}
	writeJSON(w, http.StatusOK, res)
}

// parseChat reads and checks a POST /v1/chat body; errors name the field.
func parseChat(body io.Reader) (chatRequest, botgw.ChatKey, error) {
	var req chatRequest
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return req, botgw.ChatKey{}, errors.New("body: larger than 64 KiB")
		}
		return req, botgw.ChatKey{}, fmt.Errorf("body: invalid JSON: %v", err)
	}
	k, err := webKey(req.Chat)
	if err != nil {
		return req, k, err
	}
	switch {
	case strings.TrimSpace(req.Text) == "":
		return req, k, errors.New("text: required")
	case utf8.RuneCountInString(req.Text) > maxText:
		return req, k, fmt.Errorf("text: longer than %d characters", maxText)
	}
	return req, k, nil
}

func webKey(s string) (botgw.ChatKey, error) {
	if s == "" {
		return botgw.ChatKey{}, errors.New("chat: required (web:<session>)")
	}
	k, err := botgw.ParseChatKey(s)
	if err != nil || k.Channel != Name || len(k.ID) > 128 {
		return botgw.ChatKey{}, fmt.Errorf("chat: %q is not a web chat key (web:<session>, at most 128 characters)", s)
	}
	return k, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
