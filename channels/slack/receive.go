package slack

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/botgw/botgw"
	"github.com/slack-go/slack/slackevents"
)

// message is the part of a Slack message the gateway reads.
type message struct {
	channel, user, botID string
	text, ts, threadTS   string
	files                bool         // any file shared with the message
	media                *botgw.Media // the photo or audio file among them
}

// store hands the message an event carries, if any, to deliver. It reports
// false when the message could not be made durable: the platform must then
// retry (HTTP 503, or no Socket Mode ack). With installs, an event of a
// workspace without an installation is acknowledged, counted and not
// stored, and app_uninstalled and tokens_revoked delete the installation.
func (a *adapter) store(ctx context.Context, ev slackevents.EventsAPIEvent, deliver botgw.Deliver) bool {
	if ev.Type != slackevents.CallbackEvent {
		a.Ignore()
		return true
	}
	t, ok, err := a.teamOf(ctx, eventTeams(ev))
	switch {
	case err != nil:
		a.log.Error("slack event not stored", "err", err)
		return false
	case !ok:
		a.unknownTeam()
		return true
	case a.installs != nil && a.uninstallEvent(ctx, ev, t):
		return true
	}
	in, ok := a.normalise(ev, t)
	if !ok {
		a.Ignore()
		return true
	}
	err = deliver(ctx, in)
	if err != nil && !errors.Is(err, botgw.ErrDuplicate) {
		a.log.Error("slack message not stored", "chat", in.Chat, "err", err)
		return false
	}
	return true
}

// normalise turns one Events API event of team t into an Inbound. It
// reports false for everything the gateway does not read: other event
// types, edits, joins and other subtypes, bots (this one included), channel
// messages that do not mention the bot, and empty messages.
func (a *adapter) normalise(ev slackevents.EventsAPIEvent, t team) (botgw.Inbound, bool) {
	var p message
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.MessageEvent:
		if !readMessage(e) {
			return botgw.Inbound{}, false
		}
		p = message{channel: e.Channel, user: e.User, botID: e.BotID, text: e.Text,
			ts: e.TimeStamp, threadTS: e.ThreadTimeStamp}
		if e.Message != nil {
			p.files, p.media = len(e.Message.Files) > 0, fileMedia(t.id, e.Message.Files)
		}
	case *slackevents.AppMentionEvent:
		if e.Edited != nil {
			return botgw.Inbound{}, false
		}
		p = message{channel: e.Channel, user: e.User, botID: e.BotID, text: e.Text,
			ts: e.TimeStamp, threadTS: e.ThreadTimeStamp, files: len(e.Files) > 0, media: fileMedia(t.id, e.Files)}
	default:
		return botgw.Inbound{}, false
	}
	return inbound(p, t)
}

// readMessage reports whether a message event is a new direct message. Channel
// messages reach the gateway as app_mention events instead.
func readMessage(e *slackevents.MessageEvent) bool {
	return isDM(e.Channel) && (e.SubType == "" || e.SubType == "file_share")
}

func inbound(p message, t team) (botgw.Inbound, bool) {
	self := t.self
	if p.user == "" || p.channel == "" || p.ts == "" || p.botID != "" || p.user == self.UserID { // no ts: no id to dedupe on
		return botgw.Inbound{}, false
	}
	in := botgw.Inbound{
		Chat:   chatKey(t.id, p.channel, p.ts, p.threadTS),
		Kind:   botgw.KindText,
		ID:     p.ts,
		UserID: p.user,
		Text:   cleanText(p.text, self.UserID),
		At:     tsTime(p.ts),
		Media:  p.media,
	}
	if in.Text == "" && in.Media == nil {
		if !p.files {
			return botgw.Inbound{}, false
		}
		in.Kind = botgw.KindUnsupported
	}
	return in, true
}

// chatKey is the conversation of a message: the direct message channel, or
// the thread (started by the message itself when it is a channel mention),
// led by the team's installation id when workspaces install the app. The
// app_mention and message.im copies of one message get the same key.
func chatKey(teamID, channel, ts, threadTS string) botgw.ChatKey {
	id := channel
	if teamID != "" {
		id = teamID + "/" + channel
	}
	switch {
	case threadTS != "":
		id += "/" + threadTS
	case !isDM(channel):
		id += "/" + ts
	}
	return botgw.ChatKey{Channel: name, ID: id}
}

// dest is where replies to a chat go: a team (with installs), a channel
// and a thread, if any.
type dest struct {
	chat                  botgw.ChatKey
	team, channel, thread string
}

// target reads the destination from a chat key.
func (a *adapter) target(k botgw.ChatKey) (dest, bool) {
	if k.Channel != name {
		return dest{}, false
	}
	d, rest := dest{chat: k}, k.ID
	if a.installs != nil {
		d.team, rest, _ = strings.Cut(rest, "/")
	}
	d.channel, d.thread, _ = strings.Cut(rest, "/")
	return d, d.channel != "" && (a.installs == nil || d.team != "")
}

// isDM reports whether a conversation id is a direct message (D…).
func isDM(channel string) bool { return strings.HasPrefix(channel, "D") }

var unescaper = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

// cleanText strips a leading mention of the bot ("<@U0BOT> /reset" reads
// as "/reset") and undoes Slack's escaping of & < >.
func cleanText(text, botUser string) string {
	text = strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(text, "<@"); ok {
		id, after, found := strings.Cut(rest, ">")
		id, _, _ = strings.Cut(id, "|")
		if found && (botUser == "" || id == botUser) {
			text = strings.TrimSpace(after)
		}
	}
	return unescaper.Replace(text)
}

// tsTime reads a Slack ts ("1700000000.000100") as a time.
func tsTime(ts string) time.Time {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}
	}
	us, _ := strconv.ParseInt(frac, 10, 64)
	return time.Unix(s, us*int64(time.Microsecond)).UTC()
}
