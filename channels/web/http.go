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

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/webhooks/guard"
)

//go:embed page/index.html page/chat.js
var page embed.FS

// maxBody bounds a POST /v1/chat body, maxPollBody a poll's; larger is
// 413. The text's length is limits.max_input_chars, applied (by cutting)
// where input is stored.
const (
	maxBody     = 1 << 20
	maxPollBody = 4 << 10
)

type chatRequest struct {
	Chat     string        `json:"chat"`
	Text     string        `json:"text"`
	ID       string        `json:"id"`       // optional idempotency key from the client
	Location *chatLocation `json:"location"` // a pin: {"latitude", "longitude"}
}

// chatLocation is a pin from the page (the browser's Geolocation API).
type chatLocation struct {
	Latitude  *float64 `json:"latitude"`
	Longitude *float64 `json:"longitude"`
}

// location checks a pin; errors name the field.
func (l *chatLocation) location() (*botgw.Location, error) {
	switch {
	case l.Latitude == nil:
		return nil, errors.New("location.latitude: required")
	case l.Longitude == nil:
		return nil, errors.New("location.longitude: required")
	}
	loc := &botgw.Location{Latitude: *l.Latitude, Longitude: *l.Longitude}
	if err := loc.Validate(); err != nil {
		return nil, fmt.Errorf("location.%w", err)
	}
	return loc, nil
}

type chatResponse struct {
	Reply string `json:"reply,omitempty"`
	// Choices and AskLocation are what Reply offers: the page shows them
	// as buttons; a tap posts the choice as the text.
	Choices     []string `json:"choices,omitempty"`
	AskLocation bool     `json:"ask_location,omitempty"`
	Pending     bool     `json:"pending,omitempty"`
	Messages    []string `json:"messages,omitempty"`
	// Replies are Messages with what each offers.
	Replies []reply `json:"replies,omitempty"`
}

// reply is one polled reply with its offer.
type reply struct {
	Text        string   `json:"text"`
	Choices     []string `json:"choices,omitempty"`
	AskLocation bool     `json:"ask_location,omitempty"`
}

// Page serves the chat page at / and its script at /chat.js.
func Page() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ctype := "page/index.html", "text/html; charset=utf-8"
		if r.URL.Path == "/chat.js" {
			name, ctype = "page/chat.js", "text/javascript; charset=utf-8"
		}
		b, _ := page.ReadFile(name)
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(b)
	})
}

// ChatHandler serves POST /v1/chat (send a message, wait for the reply),
// POST /v1/chat/poll and GET /v1/chat?chat=web:x (replies that arrived with
// nobody waiting) and OPTIONS (the CORS preflight of a page on an allowed
// origin). Every request is authorized before its body is read; a message
// not sent with the token is counted against its client's allowance.
func (a *Adapter) ChatHandler(deliver botgw.Deliver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, msg, err := a.authorize(r)
		if err != nil {
			status := http.StatusUnauthorized
			if errors.Is(err, errForbidden) {
				status = http.StatusForbidden
			}
			writeJSON(w, status, map[string]string{"error": msg})
			return
		}
		a.cors(w, r)
		switch {
		case r.Method == http.MethodOptions:
			w.WriteHeader(http.StatusNoContent)
		case r.Method == http.MethodGet:
			a.poll(w, r.URL.Query().Get("chat"))
		case strings.HasSuffix(r.URL.Path, "/poll"):
			a.pollPosted(w, r)
		case who == holder || a.admit(w, r):
			a.post(w, r, deliver)
		}
	})
}

func (a *Adapter) post(w http.ResponseWriter, r *http.Request, deliver botgw.Deliver) {
	req, k, err := parseChat(guard.LimitBody(w, r, maxBody))
	if err != nil {
		status, msg := http.StatusBadRequest, err.Error()
		if s, m := guard.Status(w, err); s != http.StatusBadRequest {
			status, msg = s, m
		}
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	replies, cancel := a.wait(k)
	defer cancel()
	id := req.ID
	if id == "" {
		id = newID()
	}
	in := botgw.Inbound{Chat: k, Kind: botgw.KindText, ID: id, UserID: k.ID, Text: req.Text, At: time.Now()}
	if req.Location != nil {
		in.Location, _ = req.Location.location() // checked by parseChat
		in.Text = in.Location.String()
	}
	if err := deliver(r.Context(), in); err != nil {
		a.log.Warn("web message not stored", "chat", k, "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "could not store the message; try again"})
		return
	}
	if m, ok := a.answerOf(k, id); ok { // a retry whose reply went out already
		writeJSON(w, http.StatusOK, chatResponse{Reply: m.Text, Choices: m.Choices, AskLocation: m.AskLocation})
		return
	}
	select {
	case m := <-replies:
		writeJSON(w, http.StatusOK, chatResponse{Reply: m.Text, Choices: m.Choices, AskLocation: m.AskLocation})
	case <-time.After(a.cfg.ReplyTimeout):
		writeJSON(w, http.StatusAccepted, chatResponse{Pending: true})
	case <-r.Context().Done():
	}
}

func (a *Adapter) poll(w http.ResponseWriter, chat string) {
	k, err := webKey(chat)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	var res chatResponse
	for _, m := range a.take(k) {
		res.Messages = append(res.Messages, m.Text)
		res.Replies = append(res.Replies, reply{Text: m.Text, Choices: m.Choices, AskLocation: m.AskLocation})
	}
	writeJSON(w, http.StatusOK, res)
}

// pollPosted is the page's poll: a POST carries the page's Origin, which a
// same-origin GET does not.
func (a *Adapter) pollPosted(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Chat string `json:"chat"`
	}
	dec := json.NewDecoder(guard.LimitBody(w, r, maxPollBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		status, msg := guard.Status(w, err)
		if status == http.StatusBadRequest {
			msg = "body: want {\"chat\": \"web:<session>\"}"
		}
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	a.poll(w, req.Chat)
}

// cors lets a page on an allowed origin read the answer (the gateway's own
// page is same-origin and needs nothing).
func (a *Adapter) cors(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "GET, POST")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization")
		h.Set("Access-Control-Max-Age", "600")
	}
}

// parseChat reads and checks a POST /v1/chat body; errors name the field.
func parseChat(body io.Reader) (chatRequest, botgw.ChatKey, error) {
	var req chatRequest
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if guard.Unread(err) {
			return req, botgw.ChatKey{}, fmt.Errorf("body: %w", err)
		}
		return req, botgw.ChatKey{}, fmt.Errorf("body: invalid JSON: %v", err)
	}
	k, err := webKey(req.Chat)
	if err != nil {
		return req, k, err
	}
	if req.Location != nil {
		if _, err := req.Location.location(); err != nil {
			return req, k, err
		}
	} else if strings.TrimSpace(req.Text) == "" {
		return req, k, errors.New("text: required (or location)")
	}
	if len(req.ID) > 200 {
		return req, k, errors.New("id: longer than 200 characters")
	}
	return req, k, nil
}

func webKey(s string) (botgw.ChatKey, error) {
	if s == "" {
		return botgw.ChatKey{}, errors.New("chat: required (web:<session>)")
	}
	k, err := botgw.ParseChatKey(s)
	if err != nil {
		return k, fmt.Errorf("chat: %w", err)
	}
	if k.Channel != Name {
		return botgw.ChatKey{}, fmt.Errorf("chat: %q is not a web chat key (web:<session>)", s)
	}
	return k, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
