package slack

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/webhooks/guard"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// maxBody bounds an Events API request body.
const maxBody = 1 << 20

// eventsChannel receives over the Events API.
type eventsChannel struct{ *adapter }

// WebhookHandler serves POST /webhooks/slack/events: it checks Slack's request
// signature, answers url_verification, and hands each message to deliver
// before acknowledging it, so a 200 always means "stored". It answers 503
// when deliver fails (Slack retries) and 200 to every event it ignores.
func (c *eventsChannel) WebhookHandler(deliver botgw.Deliver) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST "+c.routes.events, &eventsHandler{adapter: c.adapter, deliver: deliver})
	mux.Handle("POST "+c.routes.interactivity, &interactivityHandler{adapter: c.adapter, deliver: deliver})
	c.mountInstall(mux)
	return mux
}

type eventsHandler struct {
	*adapter
	deliver botgw.Deliver
}

func (h *eventsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, status := h.verifiedBody(w, r)
	if status != http.StatusOK {
		http.Error(w, http.StatusText(status), status)
		return
	}
	ev, err := slackevents.ParseEvent(body, slackevents.OptionNoVerifyToken())
	if err != nil {
		// Events this library does not know come back as errors; Slack
		// must still get a 200 or it retries them.
		h.log.Debug("slack event ignored", "err", err)
		w.WriteHeader(http.StatusOK)
		return
	}
	switch ev.Type {
	case slackevents.URLVerification:
		challenge := ev.Data.(*slackevents.EventsAPIURLVerificationEvent).Challenge
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, challenge)
		return
	case slackevents.AppRateLimited:
		h.log.Warn("slack is rate-limiting this app's events", "minute", ev.Data.(*slackevents.EventsAPIAppRateLimited).MinuteRateLimited)
	case slackevents.CallbackEvent:
		if !h.store(r.Context(), ev, h.deliver) {
			http.Error(w, "could not store the event", http.StatusServiceUnavailable)
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}

// verifiedBody is signedBody for the Events API, whose bodies are JSON.
func (h *eventsHandler) verifiedBody(w http.ResponseWriter, r *http.Request) ([]byte, int) {
	body, status := h.signedBody(w, r)
	if status == http.StatusOK && !json.Valid(body) {
		return nil, http.StatusBadRequest
	}
	return body, status
}

// signedBody checks a Slack request's signature headers and timestamp
// (5-minute window) before it reads a byte, then reads at most maxBody and
// checks the signature over it. It returns the status to answer with when
// they are bad.
func (a *adapter) signedBody(w http.ResponseWriter, r *http.Request) ([]byte, int) {
	sv, err := slack.NewSecretsVerifier(r.Header, a.cfg.SigningSecret)
	if err != nil {
		a.log.Warn("slack request refused", "err", err)
		return nil, http.StatusUnauthorized
	}
	body, err := guard.ReadBody(w, r, maxBody)
	if err != nil {
		status, _ := guard.Status(w, err)
		return nil, status
	}
	_, _ = sv.Write(body)
	if err := sv.Ensure(); err != nil {
		a.log.Warn("slack request refused", "err", err)
		return nil, http.StatusUnauthorized
	}
	return body, http.StatusOK
}
