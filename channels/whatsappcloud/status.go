package whatsappcloud

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/botgw/botgw"
)

// sentTTL is how long the channel remembers a message it sent, for the
// statuses Meta reports about it (a failure comes within minutes, a
// delivery to a phone that was off within days).
const sentTTL = 72 * time.Hour

func (a *Adapter) sentKey(wamid string) string { return a.prefix + ":wa_sent:" + wamid }

// post sends part i of m once the pace allows it, and remembers what it
// sent under its wamid (as a reply of its own: the part's text, already
// WhatsApp markup, and its choices), so a failed status can send it again.
func (a *Adapter) post(ctx context.Context, m botgw.Outbound, i int, msg outMessage) error {
	if err := a.paced(ctx, m); err != nil {
		return err
	}
	var ans sendAnswer
	if err := a.call(ctx, "POST", a.apiURL+"/"+a.cfg.PhoneNumberID+"/messages", msg, &ans); err != nil {
		a.held(ctx, m.Chat, err)
		return err
	}
	if len(ans.Messages) == 0 || ans.Messages[0].ID == "" {
		return nil
	}
	rec := botgw.Outbound{Chat: m.Chat, ID: m.ID + "#" + strconv.Itoa(i), Text: textOf([]outMessage{msg}),
		Proactive: m.Proactive, Meta: map[string]string{metaRaw: "1"}}
	if msg.Interactive != nil {
		rec.Offer = m.Offer
	}
	if msg.Template != nil {
		rec.Text, rec.Meta = m.Text, map[string]string{metaResend: "template"}
	}
	b, _ := json.Marshal(rec)
	if err := a.rdb.Set(ctx, a.sentKey(ans.Messages[0].ID), b, sentTTL).Err(); err != nil {
		a.log.Warn("remember a sent message for its statuses", "chat", m.Chat, "err", err)
	}
	return nil
}

// status acts on what Meta reports about a message the channel sent. A
// failure puts the message back in the chat's outbox through the pending
// list (an operator's redelivery: stored once per wamid and code): 131047 as the
// template, rate limits as it was (paced, after the hold), any other code
// as a dead letter naming it. A status of a message the channel does not
// know (sent by another app, or too long ago) is counted and ignored.
func (a *Adapter) status(ctx context.Context, s status, deliver botgw.Deliver) error {
	switch s.Status {
	case "sent", "delivered", "read", "failed":
		a.counts.add("status_" + s.Status)
	}
	if s.Status != "failed" || s.ID == "" {
		return nil
	}
	b, err := a.rdb.Get(ctx, a.sentKey(s.ID)).Bytes()
	if err == redis.Nil {
		a.counts.add("status_unknown_message")
		a.log.Info("failed status of a message the channel does not know; ignored")
		return nil
	}
	if err != nil {
		return fmt.Errorf("read a sent message: %w", err)
	}
	var r botgw.Outbound
	if err := json.Unmarshal(b, &r); err != nil {
		a.log.Warn("sent message record unreadable; status ignored", "err", err)
		return nil
	}
	ge := graphError{}
	if len(s.Errors) > 0 {
		ge = s.Errors[0]
	}
	a.noteCode(ge.Code)
	a.retarget(&r, ge)
	if r.Meta[metaRefused] == "" {
		a.held(ctx, r.Chat, &apiError{Code: ge.Code})
	}
	a.log.Warn("WhatsApp reports a sent message failed", "chat", r.Chat, "code", ge.Code)
	// one redelivery per message and code: Meta's repeats of a status dedupe
	in := botgw.OperatorInput(r.Chat, "wa-failed-"+s.ID+"-"+strconv.Itoa(ge.Code), botgw.OperatorAction{Action: botgw.OpRedeliver, Operator: Name, Reply: &r}, "")
	if err := deliver(ctx, in); err != nil {
		return fmt.Errorf("put a failed message back in %s's outbox: %w", r.Chat, err)
	}
	return nil
}

// retarget sets how a failed message goes again, by its error's code.
func (a *Adapter) retarget(r *botgw.Outbound, ge graphError) {
	r.ID = "wa-" + r.ID
	switch ge.Code {
	case codeReEngagement:
		r.Meta[metaResend] = "template"
	case codeRateLimit, codeSpamRate, codePairRate, codeTokenExpired:
	default:
		r.Meta[metaRefused] = fmt.Sprintf("code %d: %s", ge.Code, ge.Title)
	}
}
