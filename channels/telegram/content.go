package telegram

import (
	"strconv"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/botgw/botgw"
)

// content reads what a message carries besides text into in: a venue or a
// location pin (a live location's first message is a pin too), a photo's
// renditions, a voice note or audio file, a sticker's emoji. It reports
// whether the message had any of them.
func content(m *models.Message, in *botgw.Inbound) bool {
	switch {
	case m.Venue != nil: // a venue sets location too: read it first
		v := m.Venue
		in.Location = &botgw.Location{Latitude: v.Location.Latitude, Longitude: v.Location.Longitude,
			Title: v.Title, Address: v.Address}
	case m.Location != nil:
		in.Location = &botgw.Location{Latitude: m.Location.Latitude, Longitude: m.Location.Longitude}
	case len(m.Photo) > 0:
		in.Media = photo(m.Photo)
	case m.Voice != nil:
		in.Media = &botgw.Media{Kind: botgw.MediaVoice, Ref: m.Voice.FileID, MIME: m.Voice.MimeType,
			Size: m.Voice.FileSize, Seconds: m.Voice.Duration}
	case m.Audio != nil:
		in.Media = &botgw.Media{Kind: botgw.MediaVoice, Ref: m.Audio.FileID, MIME: m.Audio.MimeType,
			Size: m.Audio.FileSize, Seconds: m.Audio.Duration}
	case m.Sticker != nil && m.Sticker.Emoji != "":
		in.Text = m.Sticker.Emoji
	default:
		return false
	}
	if in.Location != nil {
		in.Text = in.Location.String()
	}
	return true
}

// photo lists the renditions Telegram offers (small to large).
func photo(sizes []models.PhotoSize) *botgw.Media {
	m := &botgw.Media{Kind: botgw.MediaPhoto}
	for _, s := range sizes {
		m.Sizes = append(m.Sizes, botgw.MediaSize{Ref: s.FileID, Size: int64(s.FileSize), Width: s.Width, Height: s.Height})
	}
	return m
}

// liveUpdate turns an edited message that moves a live location into a
// position update (no turn); ok is false for any other edit. It is
// deduplicated by its update id: two positions within one second share
// the message id and the edit date, and each is new. At is the edit date,
// so an older position arriving late does not replace a newer one
// (convo/content.go).
func (a *adapter) liveUpdate(updateID int64, m *models.Message) (botgw.Inbound, bool) {
	if m == nil || m.Location == nil || m.From == nil || m.From.IsBot {
		return botgw.Inbound{}, false
	}
	at := time.Unix(int64(m.EditDate), 0).UTC()
	if m.EditDate == 0 {
		at = time.Now().UTC()
	}
	return botgw.Inbound{
		Chat:     chatKey(m),
		Kind:     botgw.KindLocation,
		ID:       "u" + strconv.FormatInt(updateID, 10),
		UserID:   strconv.FormatInt(m.From.ID, 10),
		UserName: userName(m.From),
		At:       at,
		Location: &botgw.Location{Latitude: m.Location.Latitude, Longitude: m.Location.Longitude},
		Meta:     map[string]string{metaChatType: string(m.Chat.Type)},
	}, true
}
