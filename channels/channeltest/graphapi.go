package channeltest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// GraphAPI is a local WhatsApp Cloud API (Meta's Graph API) speaking its
// wire format: POST /{phone_number_id}/messages with a JSON body and the
// Bearer token, answered {"messaging_product":"whatsapp","messages":[{"id":
// "wamid…"}]} or {"error":{"code":…,"message":…}}; GET /{media id}
// answered with the file's url, and the file itself at that url (both
// with the token). A wrong token gets 401 with code 190, as Meta answers
// an expired one.
type GraphAPI struct {
	URL   string
	Token string

	mu      sync.Mutex
	sent    []map[string]any // every message taken (read marks apart)
	reads   []map[string]any // read marks, with or without typing
	refuse  []Reply          // the next sends' answers, before the default
	files   map[string][]byte
	nextID  int
	fetches int
}

// NewGraphAPI starts a fake Graph API for token, closed when the test ends.
func NewGraphAPI(t testing.TB, token string) *GraphAPI {
	g := &GraphAPI{Token: token, files: map[string][]byte{}}
	srv := httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// AddFile makes media id answer with data.
func (g *GraphAPI) AddFile(id string, data []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.files[id] = data
}

// Refuse answers the next len(r) sends with r, in order.
func (g *GraphAPI) Refuse(r ...Reply) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refuse = append(g.refuse, r...)
}

// GraphError is the body of a refused call with Meta's code.
func GraphError(code int, message string) string {
	return fmt.Sprintf(`{"error":{"message":%q,"type":"OAuthException","code":%d,"error_data":{"messaging_product":"whatsapp","details":%q},"fbtrace_id":"AbCdEf"}}`, message, code, message)
}

func (g *GraphAPI) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+g.Token {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, GraphError(190, "Error validating access token: Session has expired"))
		return
	}
	path := strings.Trim(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		g.message(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(path, "files/"):
		g.download(w, strings.TrimPrefix(path, "files/"))
	case r.Method == http.MethodGet:
		g.media(w, path)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, GraphError(100, "Unsupported request"))
	}
}

func (g *GraphAPI) message(w http.ResponseWriter, r *http.Request) {
	var m map[string]any
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m["messaging_product"] != "whatsapp" {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, GraphError(100, "Invalid parameter"))
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if m["status"] == "read" {
		g.reads = append(g.reads, m)
		io.WriteString(w, `{"success":true}`)
		return
	}
	if len(g.refuse) > 0 {
		rep := g.refuse[0]
		g.refuse = g.refuse[1:]
		w.WriteHeader(rep.Status)
		io.WriteString(w, rep.Body)
		return
	}
	g.nextID++
	m["wamid"] = fmt.Sprintf("wamid.out.%d.%d", time.Now().UnixNano(), g.nextID)
	g.sent = append(g.sent, m)
	fmt.Fprintf(w, `{"messaging_product":"whatsapp","contacts":[{"input":%q,"wa_id":%q}],"messages":[{"id":%q}]}`, m["to"], m["to"], m["wamid"])
}

func (g *GraphAPI) media(w http.ResponseWriter, id string) {
	g.mu.Lock()
	data, ok := g.files[id]
	g.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, GraphError(100, "Unsupported get request. Object with ID does not exist"))
		return
	}
	fmt.Fprintf(w, `{"messaging_product":"whatsapp","url":%q,"mime_type":"application/octet-stream","sha256":"x","file_size":%d,"id":%q}`,
		g.URL+"/files/"+id, len(data), id)
}

func (g *GraphAPI) download(w http.ResponseWriter, id string) {
	g.mu.Lock()
	data, ok := g.files[id]
	g.fetches++
	g.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Write(data)
}

// Sent is every message the fake took, in order; "wamid" is the id it
// answered.
func (g *GraphAPI) Sent() []map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]map[string]any(nil), g.sent...)
}

// SentTo is the messages taken for wa_id to.
func (g *GraphAPI) SentTo(to string) []map[string]any {
	var out []map[string]any
	for _, m := range g.Sent() {
		if m["to"] == to {
			out = append(out, m)
		}
	}
	return out
}

// Reads is every read mark the fake took.
func (g *GraphAPI) Reads() []map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]map[string]any(nil), g.reads...)
}

// GraphText is the text a sent message shows: a text's body, an
// interactive message's body, a template's first parameter.
func GraphText(m map[string]any) string {
	switch m["type"] {
	case "text":
		return dig(m, "text", "body")
	case "interactive":
		return dig(m, "interactive", "body", "text")
	case "template":
		c, _ := dig2(m, "template")["components"].([]any)
		if len(c) == 0 {
			return ""
		}
		p, _ := c[0].(map[string]any)["parameters"].([]any)
		if len(p) == 0 {
			return ""
		}
		s, _ := p[0].(map[string]any)["text"].(string)
		return s
	}
	return ""
}

func dig2(m map[string]any, k string) map[string]any {
	v, _ := m[k].(map[string]any)
	return v
}

func dig(m map[string]any, keys ...string) string {
	for _, k := range keys[:len(keys)-1] {
		m = dig2(m, k)
	}
	s, _ := m[keys[len(keys)-1]].(string)
	return s
}

// WAHook is a webhook body of Meta's with the given messages and statuses
// for phone number id phone.
func WAHook(phone string, messages, statuses []map[string]any) []byte {
	value := map[string]any{"messaging_product": "whatsapp",
		"metadata": map[string]any{"display_phone_number": "15550001111", "phone_number_id": phone}}
	if messages != nil {
		value["messages"] = messages
		from, _ := messages[0]["from"].(string)
		value["contacts"] = []map[string]any{{"profile": map[string]any{"name": "Ada"}, "wa_id": from}}
	}
	if statuses != nil {
		value["statuses"] = statuses
	}
	b, _ := json.Marshal(map[string]any{"object": "whatsapp_business_account",
		"entry": []map[string]any{{"id": "102290129340398", "changes": []map[string]any{{"field": "messages", "value": value}}}}})
	return b
}

// WAMessage is one inbound message of type typ from wa_id from, sent at at,
// with the type's part (text: {"body": …}, image: {"id": …}…).
func WAMessage(from, id string, at time.Time, typ string, part map[string]any) map[string]any {
	m := map[string]any{"from": from, "id": id, "timestamp": fmt.Sprint(at.Unix()), "type": typ}
	m[typ] = part
	return m
}

// WASignature is the X-Hub-Signature-256 of body under secret.
func WASignature(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}
