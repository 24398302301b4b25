package convo

import (
	"context"
	"strings"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/codec"
)

// MediaReader fetches the photo or recording an input refers to and says
// what the model reads of it (convo/media). It never fails: what cannot be
// read comes back as the message's marker and caption with a notice for
// the player, and then the model is not asked about it.
type MediaReader interface {
	// Read returns the user message for in: Text with the marker and the
	// caption or transcript, Media set, Images for this turn only. It
	// blocks while the media is fetched or transcribed; safe for
	// concurrent use.
	Read(ctx context.Context, in botgw.Inbound) (m botgw.Message, notice string)
}

// locationEvent is the keyed event that pins a chat's latest position, so
// later turns see where the player is after compaction dropped the pin.
func locationEvent(in botgw.Inbound) botgw.Inbound {
	l := *in.Location
	text := "The player's current location: " + strings.ReplaceAll(l.String(), "\n", ", ")
	return botgw.Inbound{Chat: in.Chat, Kind: botgw.KindEvent, ID: in.ID, At: in.At,
		Event: &botgw.Event{ID: "location-" + in.ID, Key: botgw.LocationKey, Text: text}, Location: &l}
}

// applyLocation replaces the chat's keyed event "location" with in's
// position, after the user's text gathered so far, unless the stored
// position is newer (positions can arrive out of order).
func (b *batch) applyLocation(env *codec.Envelope, in botgw.Inbound) {
	b.flushUser(env)
	if newerPosition(env.History, in.At) {
		return
	}
	applyEvent(env, locationEvent(in))
}

// newerPosition reports whether history holds a live position taken
// after at.
func newerPosition(history []botgw.Message, at time.Time) bool {
	for _, m := range history {
		if m.Role == botgw.RoleEvent && m.EventKey == botgw.LocationKey &&
			strings.HasPrefix(m.EventID, "location-") && m.At.After(at) {
			return true
		}
	}
	return false
}

// flushUser appends the user's text gathered so far to the history, so
// what comes next stays after it.
func (b *batch) flushUser(env *codec.Envelope) {
	if b.user != nil {
		env.History = append(env.History, *b.user)
		b.user = nil
	}
}

// readMedia turns a photo or recording into the user message the model
// reads. When the media cannot be read the message (its marker and
// caption) is kept without asking the model and the player gets the
// notice. Without a reader the model reads the marker and the caption,
// and media without a caption gets the text-only notice.
func (e *Engine) readMedia(ctx context.Context, b *batch, in botgw.Inbound) {
	m, notice := botgw.Message{Text: markerText(in), Media: in.Media.Kind}, ""
	switch {
	case e.deps.Media != nil && !in.Backlog:
		m, notice = e.deps.Media.Read(ctx, in)
	case strings.TrimSpace(in.Text) == "" && !in.Backlog:
		notice = e.cfg.UnsupportedNotice
	}
	if notice != "" {
		in.Backlog = true // stored, not answered by the model
		if !b.asked {
			b.last = in
		}
		b.replies = append(b.replies, notice)
		b.notices = append(b.notices, notice)
	}
	b.add(in, m)
}

// markerText is a media message's text without its content: the marker
// and the caption.
func markerText(in botgw.Inbound) string {
	return strings.TrimSpace(in.Media.Kind.Marker() + " " + in.Text)
}

// dropImages forgets the photos sent with the turn's user message: the
// history keeps "[photo]" and the caption, and the state a worker keeps in
// memory for the chat's next turn must not send the image again.
func dropImages(h []botgw.Message) {
	for i := len(h) - 1; i >= 0; i-- {
		h[i].Images = nil
	}
}
