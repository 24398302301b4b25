package telegram

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/webhooks/guard"
)

const (
	// WebhookPath is where the gateway serves Telegram's updates.
	WebhookPath  = "/webhooks/" + Name
	secretHeader = "X-Telegram-Bot-Api-Secret-Token"
	maxBody      = 1 << 20
)

// WebhookHandler serves POST /webhooks/telegram. It checks the secret token
// before it reads the body and answers 401 to a wrong one, 400 to a body
// that is not an Update, 413 past 1 MiB, 503 when deliver could not store
// the message or the gateway's budget of bodies in flight is full (Telegram
// then redelivers it), and 200 once the message is durable or ignored.
// The 200 for a message the assistant answers shows "typing" (answerTyping);
// the 200 for a tap answers its callback query (answerTapInWebhook).
func (c webhookChannel) WebhookHandler(deliver botgw.Deliver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != WebhookPath {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, "method: want POST")
			return
		}
		if !c.validSecret(r.Header.Get(secretHeader)) {
			writeError(w, http.StatusUnauthorized, secretHeader+": wrong or missing secret token")
			return
		}
		var u models.Update
		if err := json.NewDecoder(guard.LimitBody(w, r, maxBody)).Decode(&u); err != nil {
			if status, msg := guard.Status(w, err); status != http.StatusBadRequest {
				writeError(w, status, msg)
				return
			}
			writeError(w, http.StatusBadRequest, "body: want a Telegram Update as JSON")
			return
		}
		in, ok := c.normalize(&u)
		typing, typed := target{}, false
		if ok && u.CallbackQuery == nil { // a tap's answer is answerCallbackQuery
			typing, typed = markTyping(&in, time.Now())
		}
		if !ok {
			c.Ignore()
		} else if err := deliver(r.Context(), in); err != nil {
			c.log.Error("deliver telegram update", "chat", in.Chat, "err", err)
			writeError(w, http.StatusServiceUnavailable, "message not stored, retry later")
			return
		}
		if u.CallbackQuery != nil {
			answerTapInWebhook(w, u.CallbackQuery)
			return
		}
		if typed {
			answerTyping(w, typing)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
}

// markTyping reports whether the webhook's answer to in shows "typing",
// and in which chat, and if so stamps in with now (metaTypingShown): text and
// media start a turn and do; live-location updates, backlog and input the
// gateway cannot read do not. Taps are never passed: their answer answers
// the callback query.
func markTyping(in *botgw.Inbound, now time.Time) (target, bool) {
	if in.Kind != botgw.KindText || in.Backlog {
		return target{}, false
	}
	t, err := parseTarget(in.Chat)
	if err != nil {
		return target{}, false
	}
	if in.Meta == nil {
		in.Meta = map[string]string{}
	}
	in.Meta[metaTypingShown] = strconv.FormatInt(now.UnixMilli(), 10)
	return t, true
}

func (c webhookChannel) validSecret(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(c.cfg.WebhookSecret)) == 1
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
