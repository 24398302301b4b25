package whatsappcloud

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/webhooks/guard"
)

const (
	// WebhookPath is where the gateway serves Meta's webhook.
	WebhookPath     = "/webhooks/" + Name
	signatureHeader = "X-Hub-Signature-256"
	maxBody         = 1 << 20
)

// WebhookHandler serves GET /webhooks/whatsapp_cloud (Meta's subscription
// handshake: 200 with hub.challenge when hub.verify_token is right, else
// 403) and POST /webhooks/whatsapp_cloud: 413 past 1 MiB, 401 when
// X-Hub-Signature-256 is not the body's HMAC-SHA256 under app_secret
// (checked before the body is parsed), 400 naming the field of a body that
// is not a webhook, 503 when a message could not be stored (Meta then
// sends the body again), and 200 once every message is durable.
func (a *Adapter) WebhookHandler(deliver botgw.Deliver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path != WebhookPath:
			http.NotFound(w, r)
		case r.Method == http.MethodGet:
			a.handshake(w, r)
		case r.Method == http.MethodPost:
			a.receive(w, r, deliver)
		default:
			w.Header().Set("Allow", "GET, POST")
			writeError(w, http.StatusMethodNotAllowed, "method: want GET or POST")
		}
	})
}

// handshake answers Meta's subscription check.
func (a *Adapter) handshake(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	token := q.Get("hub.verify_token")
	if q.Get("hub.mode") != "subscribe" || subtle.ConstantTimeCompare([]byte(token), []byte(a.cfg.VerifyToken)) != 1 {
		writeError(w, http.StatusForbidden, "hub.verify_token: wrong, or hub.mode is not subscribe")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(q.Get("hub.challenge")))
}

func (a *Adapter) receive(w http.ResponseWriter, r *http.Request, deliver botgw.Deliver) {
	body, err := guard.ReadBody(w, r, maxBody)
	if err != nil {
		status, msg := guard.Status(w, err)
		writeError(w, status, msg)
		return
	}
	if !a.validSignature(r.Header.Get(signatureHeader), body) {
		writeError(w, http.StatusUnauthorized, signatureHeader+": missing or not the body's HMAC-SHA256 under app_secret")
		return
	}
	var h hook
	if err := json.Unmarshal(body, &h); err != nil {
		writeError(w, http.StatusBadRequest, "body: want Meta's webhook JSON")
		return
	}
	if msg := h.problem(); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	if err := a.handle(r.Context(), h, deliver); err != nil {
		a.log.Error("store whatsapp_cloud webhook", "err", err)
		writeError(w, http.StatusServiceUnavailable, "message not stored, retry later")
		return
	}
	w.WriteHeader(http.StatusOK)
}

// validSignature checks "sha256=<hex>" against the body in constant time.
func (a *Adapter) validSignature(header string, body []byte) bool {
	got, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	sum, err := hex.DecodeString(got)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(a.cfg.AppSecret))
	mac.Write(body)
	return hmac.Equal(sum, mac.Sum(nil))
}

// problem names what makes h no webhook body; empty when it is one.
func (h hook) problem() string {
	switch {
	case h.Object != "whatsapp_business_account":
		return "object: want whatsapp_business_account"
	case len(h.Entry) == 0:
		return "entry: required, a list of at least one entry"
	}
	return ""
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
