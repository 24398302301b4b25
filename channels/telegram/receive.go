package telegram

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"

	"github.com/go-telegram/bot/models"

	"github.com/botgw/botgw"
)

// Meta keys the adapter stores on an Inbound and reads back in Send.
const (
	metaMessageID = "message_id"
	metaChatType  = "chat_type"
	// metaTypingShown is when (Unix ms) the webhook's answer to the
	// message showed "typing" (answerTyping).
	metaTypingShown = "typing_shown"
)

// normalize turns an update into the Inbound to deliver; ok is false for
// updates the gateway ignores: anything but a new message or a tap on a
// choice (edits, channel posts), messages from bots, service messages, and group messages that do
// not address the bot when group_trigger is mention.
func (a *adapter) normalize(u *models.Update) (in botgw.Inbound, ok bool) {
	if u.CallbackQuery != nil {
		return a.tap(u.CallbackQuery)
	}
	if u.Message == nil && u.EditedMessage != nil {
		return a.liveUpdate(u.ID, u.EditedMessage)
	}
	m := u.Message
	if m == nil || m.From == nil || m.From.IsBot {
		return botgw.Inbound{}, false
	}
	text, entities := m.Text, m.Entities
	if text == "" {
		text, entities = m.Caption, m.CaptionEntities
	}
	if isGroup(m.Chat.Type) && !a.addressed(m, text, entities) {
		return botgw.Inbound{}, false
	}
	in = botgw.Inbound{
		Chat:     chatKey(m),
		Kind:     botgw.KindText,
		ID:       strconv.Itoa(m.ID),
		UserID:   strconv.FormatInt(m.From.ID, 10),
		UserName: userName(m.From),
		Text:     a.cleanText(text),
		At:       time.Unix(int64(m.Date), 0).UTC(),
		Meta:     map[string]string{metaMessageID: strconv.Itoa(m.ID), metaChatType: string(m.Chat.Type)},
	}
	if content(m, &in) || strings.TrimSpace(text) != "" {
		return in, true
	}
	if !hasMedia(m) {
		return botgw.Inbound{}, false
	}
	in.Kind = botgw.KindUnsupported
	return in, true
}

// chatKey is telegram:<chat> or, inside a forum topic, telegram:<chat>/<thread>.
func chatKey(m *models.Message) botgw.ChatKey {
	id := strconv.FormatInt(m.Chat.ID, 10)
	if m.IsTopicMessage && m.MessageThreadID != 0 {
		id += "/" + strconv.Itoa(m.MessageThreadID)
	}
	return botgw.ChatKey{Channel: Name, ID: id}
}

func isGroup(t models.ChatType) bool {
	return t == models.ChatTypeGroup || t == models.ChatTypeSupergroup
}

func userName(u *models.User) string {
	if u.Username != "" {
		return u.Username
	}
	return strings.TrimSpace(u.FirstName + " " + u.LastName)
}

// hasMedia reports whether m carries user content the gateway cannot read,
// as opposed to a service message (member joined, title changed...).
func hasMedia(m *models.Message) bool {
	return len(m.Photo) > 0 || m.Animation != nil || m.Audio != nil ||
		m.Document != nil || m.Sticker != nil || m.Video != nil ||
		m.VideoNote != nil || m.Voice != nil || m.Contact != nil ||
		m.Location != nil || m.Venue != nil || m.Poll != nil || m.Dice != nil ||
		m.Story != nil || m.PaidMedia != nil || m.Checklist != nil
}

// addressed reports whether a group message is for the bot under the
// configured group trigger. A /command@OtherBot is never for the bot.
func (a *adapter) addressed(m *models.Message, text string, entities []models.MessageEntity) bool {
	if cmd, ok := leadingCommand(text, entities); ok {
		_, target, found := strings.Cut(cmd, "@")
		return !found || a.isMe(target)
	}
	if a.cfg.GroupTrigger == TriggerAll {
		return true
	}
	if r := m.ReplyToMessage; r != nil && r.From != nil && r.From.ID == a.botID && !isTopicRoot(m) {
		return true
	}
	for _, e := range entities {
		switch e.Type {
		case models.MessageEntityTypeMention:
			if a.isMe(strings.TrimPrefix(entityText(text, e), "@")) {
				return true
			}
		case models.MessageEntityTypeTextMention:
			if e.User != nil && e.User.ID == a.botID {
				return true
			}
		}
	}
	return false
}

// isTopicRoot reports whether m's reply_to_message is only the service
// message that opened its forum topic, which Telegram attaches to every
// message of the topic.
func isTopicRoot(m *models.Message) bool {
	return m.IsTopicMessage && m.ReplyToMessage.ForumTopicCreated != nil
}

// isMe reports whether username is the bot's. Before getMe succeeded the
// bot's username is unknown and nothing matches.
func (a *adapter) isMe(username string) bool {
	me := a.username.Load()
	return me != nil && strings.EqualFold(username, *me)
}

// leadingCommand returns the /command (with any @suffix) starting text.
func leadingCommand(text string, entities []models.MessageEntity) (string, bool) {
	for _, e := range entities {
		if e.Type == models.MessageEntityTypeBotCommand && e.Offset == 0 {
			return entityText(text, e), true
		}
	}
	return "", false
}

// entityText extracts an entity; Telegram offsets count UTF-16 code units.
func entityText(text string, e models.MessageEntity) string {
	u := utf16.Encode([]rune(text))
	if e.Offset < 0 || e.Length < 0 || e.Offset+e.Length > len(u) {
		return ""
	}
	return string(utf16.Decode(u[e.Offset : e.Offset+e.Length]))
}

// cleanText makes a message addressed to the bot read as the user meant it:
// "@bot hello" becomes "hello" and "/reset@bot now" becomes "/reset now".
func (a *adapter) cleanText(text string) string {
	me := ""
	if p := a.username.Load(); p != nil {
		me = *p
	}
	return stripCommandTarget(stripMention(text, me), me)
}

// stripMention removes a leading "@me" and the separators after it.
func stripMention(text, me string) string {
	mention := "@" + me
	if me == "" || len(text) < len(mention) || !strings.EqualFold(text[:len(mention)], mention) {
		return text
	}
	rest := text[len(mention):]
	if rest != "" && isWordRune(rest) {
		return text // "@mebot" is somebody else
	}
	return strings.TrimLeftFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == ':' })
}

// stripCommandTarget turns "/cmd@me args" into "/cmd args". While the bot's
// own username is unknown (me == ""), any target is removed.
func stripCommandTarget(text, me string) string {
	if !strings.HasPrefix(text, "/") {
		return text
	}
	word, rest, hasRest := strings.Cut(text, " ")
	cmd, target, ok := strings.Cut(word, "@")
	if !ok || (me != "" && !strings.EqualFold(target, me)) {
		return text
	}
	if hasRest {
		return cmd + " " + rest
	}
	return cmd
}

func isWordRune(s string) bool {
	r := []rune(s)[0]
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
