package whatsapp

import (
	"strings"
	"unicode"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
)

// ignored reports messages the gateway never answers: its own (sent from
// the phone or by itself), status updates and broadcast lists, channels
// (newsletters), and edits of messages already taken.
func ignored(e *events.Message) bool {
	switch {
	case e.Message == nil, e.Info.IsFromMe, e.IsEdit:
		return true
	case e.Info.Chat.Server == types.BroadcastServer, e.Info.Chat.Server == types.NewsletterServer:
		return true
	}
	return false
}

// content is what m carries: plain or extended text, or a caption; a
// location pin or the first message of a live location; a photo or a
// voice note or audio file (by reference, for the turn to download). Other
// media without text (video, documents, stickers, which carry no emoji on
// WhatsApp, contacts) is KindUnsupported; anything else (reactions,
// protocol messages, key distribution, poll votes…) is not content: ok is
// false.
func content(m *waE2E.Message) (in botgw.Inbound, ok bool) {
	in.Kind = botgw.KindText
	if l := pin(m); l != nil {
		in.Location, in.Text = l, l.String()
		return in, true
	}
	in.Media = mediaRef(m)
	for _, t := range []string{
		m.GetConversation(),
		m.GetExtendedTextMessage().GetText(),
		m.GetImageMessage().GetCaption(),
		m.GetVideoMessage().GetCaption(),
		m.GetDocumentMessage().GetCaption(),
	} {
		if strings.TrimSpace(t) != "" {
			in.Text = t
			return in, true
		}
	}
	if in.Media != nil {
		return in, true
	}
	if m.VideoMessage != nil || m.PtvMessage != nil || m.DocumentMessage != nil || m.StickerMessage != nil ||
		m.ContactMessage != nil || m.ContactsArrayMessage != nil {
		in.Kind = botgw.KindUnsupported
		return in, true
	}
	return botgw.Inbound{}, false
}

// pin is the position of a LocationMessage or of a live location's first
// message (a linked device never receives a live location's updates).
func pin(m *waE2E.Message) *botgw.Location {
	if l := m.GetLocationMessage(); l != nil {
		return &botgw.Location{Latitude: l.GetDegreesLatitude(), Longitude: l.GetDegreesLongitude(),
			Title: l.GetName(), Address: l.GetAddress()}
	}
	if l := m.GetLiveLocationMessage(); l != nil {
		return &botgw.Location{Latitude: l.GetDegreesLatitude(), Longitude: l.GetDegreesLongitude()}
	}
	return nil
}

// contextInfo is the mention and quote data of m, whatever its type.
func contextInfo(m *waE2E.Message) *waE2E.ContextInfo {
	for _, ci := range []*waE2E.ContextInfo{
		m.GetExtendedTextMessage().GetContextInfo(),
		m.GetImageMessage().GetContextInfo(),
		m.GetVideoMessage().GetContextInfo(),
		m.GetDocumentMessage().GetContextInfo(),
		m.GetAudioMessage().GetContextInfo(),
		m.GetStickerMessage().GetContextInfo(),
		m.GetLocationMessage().GetContextInfo(),
		m.GetLiveLocationMessage().GetContextInfo(),
	} {
		if ci != nil {
			return ci
		}
	}
	return nil
}

// addressed reports whether a group message is for the bot: always with
// group_trigger "all"; otherwise when it mentions the bot or replies to one
// of its messages (mentions and quotes may use the phone JID or the LID).
func (a *Adapter) addressed(cli client, m *waE2E.Message) bool {
	if a.cfg.groupTrigger() == TriggerAll {
		return true
	}
	ci := contextInfo(m)
	if ci == nil {
		return false
	}
	if ci.GetStanzaID() != "" && isOwn(cli, ci.GetParticipant()) {
		return true
	}
	for _, j := range ci.GetMentionedJID() {
		if isOwn(cli, j) {
			return true
		}
	}
	return false
}

func isOwn(cli client, s string) bool {
	j, err := types.ParseJID(s)
	if err != nil || j.IsEmpty() {
		return false
	}
	j = j.ToNonAD()
	pn, lid := cli.OwnIDs()
	return (!pn.IsEmpty() && j == pn) || (!lid.IsEmpty() && j == lid)
}

// stripMention removes a leading @mention of the bot ("@447700900123 /reset"
// reads "/reset"), so in-chat commands work in groups.
func stripMention(text string, cli client) string {
	pn, lid := cli.OwnIDs()
	trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
	for _, own := range []types.JID{pn, lid} {
		if own.User == "" {
			continue
		}
		rest, ok := strings.CutPrefix(trimmed, "@"+own.User)
		if ok && (rest == "" || !unicode.IsDigit(rune(rest[0]))) {
			return strings.TrimLeft(rest, " \t\n,:")
		}
	}
	return text
}
