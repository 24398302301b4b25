package slack

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"unicode/utf8"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels"
	"github.com/slack-go/slack"
)

// Choices on Slack: the reply's last part is posted with Block Kit blocks,
// a section with the part's mrkdwn and an actions block with one button per
// choice. A button's value is its label (Slack allows 2,000 characters;
// labels have at most 64) and its action_id the choice's tap data
// (channels.TapData), so a tap carries everything back: the label is the
// player's words on any replica, however old the message. A tap arrives at
// POST /webhooks/slack/interactivity (or over Socket Mode), signed like the
// Events API. Slack has no location button: AskLocation is not shown.

// maxSectionText is the longest text a section block takes; a longer last
// part goes out as it is and the buttons follow in a message of their own.
const maxSectionText = 3000

// choiceBlocks are the blocks of a part carrying offer's choices: the text
// as a section (when it fits) and the buttons.
func choiceBlocks(text string, offer botgw.Offer) []slack.Block {
	var buttons []slack.BlockElement
	for i, c := range offer.Choices {
		label := slack.NewTextBlockObject(slack.PlainTextType, c, true, false)
		buttons = append(buttons, slack.NewButtonBlockElement(channels.TapData(offer, i), c, label))
	}
	actions := slack.NewActionBlock("botgw_choices", buttons...)
	if text == "" {
		return []slack.Block{actions}
	}
	section := slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, text, false, false), nil, nil)
	return []slack.Block{section, actions}
}

// layout is a reply's posts: its parts' text and the blocks of each.
type post struct {
	text   string
	blocks []slack.Block
}

func layout(parts []string, offer botgw.Offer) []post {
	out := make([]post, len(parts))
	for i, p := range parts {
		out[i] = post{text: p}
	}
	if len(offer.Choices) == 0 || len(out) == 0 {
		return out
	}
	last := &out[len(out)-1]
	if utf8.RuneCountInString(last.text) <= maxSectionText {
		last.blocks = choiceBlocks(last.text, offer)
		return out
	}
	return append(out, post{text: "Choose one:", blocks: choiceBlocks("", offer)})
}

// interactivityHandler serves POST /webhooks/slack/interactivity.
type interactivityHandler struct {
	*adapter
	deliver botgw.Deliver
}

func (h *interactivityHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, status := h.signedBody(w, r)
	if status != http.StatusOK {
		http.Error(w, http.StatusText(status), status)
		return
	}
	form, err := url.ParseQuery(string(body))
	var cb slack.InteractionCallback
	if err == nil {
		err = json.Unmarshal([]byte(form.Get("payload")), &cb)
	}
	if err != nil {
		http.Error(w, "payload: want the interaction's JSON in the form field payload", http.StatusBadRequest)
		return
	}
	if !h.storeTap(r.Context(), cb, h.deliver) {
		http.Error(w, "could not store the tap", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// storeTap hands the tap an interaction carries to deliver; interactions
// that are not a tap on a message's button are acknowledged and counted as
// ignored, as are taps in a workspace without an installation. It reports
// false when the tap could not be made durable.
func (a *adapter) storeTap(ctx context.Context, cb slack.InteractionCallback, deliver botgw.Deliver) bool {
	t, ok, err := a.teamOf(ctx, tapTeams(cb))
	switch {
	case err != nil:
		a.log.Error("slack tap not stored", "err", err)
		return false
	case !ok:
		a.unknownTeam()
		return true
	}
	in, ok := tapInbound(cb, t.id)
	if !ok {
		a.Ignore()
		return true
	}
	if err := deliver(ctx, in); err != nil && !errors.Is(err, botgw.ErrDuplicate) {
		a.log.Error("slack tap not stored", "chat", in.Chat, "err", err)
		return false
	}
	return true
}

// tapInbound is the player's message a block_actions interaction stands
// for: the button's value (its label) as text, deduplicated on the
// interaction's trigger_id.
func tapInbound(cb slack.InteractionCallback, teamID string) (botgw.Inbound, bool) {
	acts := cb.ActionCallback.BlockActions
	channel := cb.Container.ChannelID
	if channel == "" {
		channel = cb.Channel.ID
	}
	msgTS := cb.Container.MessageTs
	if cb.Type != slack.InteractionTypeBlockActions || len(acts) == 0 || channel == "" || msgTS == "" || cb.User.ID == "" {
		return botgw.Inbound{}, false
	}
	act := acts[0]
	id := cb.TriggerID
	if id == "" {
		id = act.ActionTs
	}
	tap, known := channels.ParseTapData(act.ActionID)
	in := botgw.Inbound{Chat: chatKey(teamID, channel, msgTS, threadOf(cb)), Kind: botgw.KindText, ID: "act:" + id,
		UserID: cb.User.ID, UserName: cb.User.Name, At: tsTime(act.ActionTs), Tap: &tap}
	if known {
		in.Text = act.Value
	}
	return in, id != ""
}

// threadOf is the thread of the message tapped: the thread the bot posted
// its reply into.
func threadOf(cb slack.InteractionCallback) string {
	if cb.Container.ThreadTs != "" {
		return cb.Container.ThreadTs
	}
	return cb.Message.ThreadTimestamp
}
