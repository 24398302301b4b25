package telegram

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels"
)

// Choices on Telegram: an offer's choices are the inline keyboard of the
// reply's last message, one button a row, each button's callback_data
// "c1:<offer ref>:<index>" (channels.TapData, far below the 64-byte limit).
// A tap arrives as a callback_query carrying the message with its keyboard,
// so the label is read from the tapped button itself: no lookup, the same on
// every replica and after any restart. When Telegram sends the message as
// inaccessible, the tap goes on with its reference only and the engine finds
// the label in the chat's history. AskLocation is a one-time reply keyboard
// with a request_location button (private chats only: Telegram refuses it
// elsewhere), on the last message, or on a message of its own when the
// inline keyboard already takes that one.

// expiredNote answers a tap whose button data the gateway did not write.
const expiredNote = "Sorry, that button no longer works. Please type your answer."

// locationPrompt is the text of the message that carries the location
// button when the reply's own last message carries the choices.
const locationPrompt = "📍 Use the button below to share your location."

// locationLabel is the location button's text.
const locationLabel = "📍 Share my location"

// answerTimeout bounds answerCallbackQuery in polling mode, which runs
// before the next update is read. The webhook calls no API for a tap: its
// answer names the method (answerTapInWebhook).
const answerTimeout = 5 * time.Second

// inlineKeyboard is reply_markup with an inline keyboard, written without
// the library's button type, which always sends an empty copy_text
// (go-telegram/bot#167).
type inlineKeyboard struct {
	InlineKeyboard [][]inlineButton `json:"inline_keyboard"`
}

type inlineButton struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data"`
}

// keyboard is the inline keyboard of offer's choices, one button a row.
func keyboard(offer botgw.Offer) *inlineKeyboard {
	kb := &inlineKeyboard{}
	for i, c := range offer.Choices {
		kb.InlineKeyboard = append(kb.InlineKeyboard, []inlineButton{{Text: c, CallbackData: channels.TapData(offer, i)}})
	}
	return kb
}

// locationKeyboard is a one-time reply keyboard asking for the location.
func locationKeyboard() *models.ReplyKeyboardMarkup {
	return &models.ReplyKeyboardMarkup{
		Keyboard:        [][]models.KeyboardButton{{{Text: locationLabel, RequestLocation: true}}},
		OneTimeKeyboard: true, ResizeKeyboard: true,
	}
}

// part is one message of a reply: its HTML and the keyboard it carries.
type part struct {
	html   string
	markup any // nil, *inlineKeyboard or *models.ReplyKeyboardMarkup
}

// parts lays a reply's rendered chunks out as messages, the offer's
// keyboards on the last ones.
func parts(chunks []string, offer botgw.Offer, t target) []part {
	out := make([]part, len(chunks))
	for i, c := range chunks {
		out[i] = part{html: c}
	}
	askLocation := offer.AskLocation && t.chat > 0 // a private chat
	if len(out) == 0 {
		return out
	}
	last := &out[len(out)-1]
	switch {
	case len(offer.Choices) > 0:
		last.markup = keyboard(offer)
		if askLocation {
			out = append(out, part{html: locationPrompt, markup: locationKeyboard()})
		}
	case askLocation:
		last.markup = locationKeyboard()
	}
	return out
}

// tap is the Inbound of a callback_query: the player's message whose text
// is the tapped button's label. ok is false for a query without a chat
// (a button under an inline-mode message), which is answered and ignored.
func (a *adapter) tap(q *models.CallbackQuery) (botgw.Inbound, bool) {
	in := botgw.Inbound{Kind: botgw.KindText, ID: "cb:" + q.ID,
		UserID: strconv.FormatInt(q.From.ID, 10), UserName: userName(&q.From), At: time.Now().UTC()}
	tap, known := channels.ParseTapData(q.Data)
	in.Tap = &tap
	switch m := q.Message; {
	case m.Message != nil:
		in.Chat = chatKey(m.Message)
		in.Meta = map[string]string{metaMessageID: strconv.Itoa(m.Message.ID), metaChatType: string(m.Message.Chat.Type)}
		if known {
			in.Text = buttonLabel(m.Message, q.Data)
		}
	case m.InaccessibleMessage != nil && m.InaccessibleMessage.Chat.ID != 0:
		c := m.InaccessibleMessage.Chat
		in.Chat = botgw.ChatKey{Channel: Name, ID: strconv.FormatInt(c.ID, 10)}
		in.Meta = map[string]string{metaChatType: string(c.Type)}
	default:
		return botgw.Inbound{}, false
	}
	return in, true
}

// buttonLabel is the text of the button of m's inline keyboard whose data
// is data; "" when the keyboard is gone.
func buttonLabel(m *models.Message, data string) string {
	if m.ReplyMarkup == nil {
		return ""
	}
	for _, row := range m.ReplyMarkup.InlineKeyboard {
		for _, b := range row {
			if b.CallbackData == data {
				return b.Text
			}
		}
	}
	return ""
}

// tapAnswer stops the spinner on the tapped button, with a short note when
// the button's data is none the gateway wrote. It is sent once the tap is
// stored (or ignored), before the turn: the player sees the tap taken at
// once however long the model takes.
func tapAnswer(q *models.CallbackQuery) bot.AnswerCallbackQueryParams {
	p := bot.AnswerCallbackQueryParams{CallbackQueryID: q.ID}
	if _, known := channels.ParseTapData(q.Data); !known {
		p.Text = expiredNote
	}
	return p
}

// answerTap sends tapAnswer (polling mode). Telegram refuses a second
// answer to the same query (a redelivered update); that is only logged.
func (a *adapter) answerTap(q *models.CallbackQuery) {
	ctx, cancel := context.WithTimeout(context.Background(), answerTimeout)
	defer cancel()
	p := tapAnswer(q)
	if _, err := a.bot.AnswerCallbackQuery(ctx, &p); err != nil {
		a.log.Debug("telegram answerCallbackQuery", "err", err)
	}
}

// answerTapInWebhook writes the webhook's answer to a tap: Telegram runs
// the answerCallbackQuery it names, so the webhook waits on no call of its
// own, however slow Telegram's API is. An answer names one method, so a
// tap's answer shows no "typing": the turn shows it itself (firstSignal).
func answerTapInWebhook(w http.ResponseWriter, q *models.CallbackQuery) {
	writeMethod(w, struct {
		Method string `json:"method"`
		bot.AnswerCallbackQueryParams
	}{"answerCallbackQuery", tapAnswer(q)})
}
