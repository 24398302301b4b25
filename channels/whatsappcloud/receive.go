package whatsappcloud

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels"
)

// Meta keys the adapter stores on an Inbound and reads back in Send.
const (
	metaMessageID = "message_id" // the wamid, for the read mark
	// metaSentAt is the message's own timestamp (Unix seconds): a reply
	// to a message older than the window goes the window's way.
	metaSentAt = "wa_ts"
)

// handle stores every message of h (once per wamid: the store dedupes)
// and notes each chat's window, then acts on the statuses. Read marks go
// out after the answer, in the background.
func (a *Adapter) handle(ctx context.Context, h hook, deliver botgw.Deliver) error {
	var stored []botgw.Inbound
	for _, e := range h.Entry {
		for _, c := range e.Changes {
			if c.Field != "messages" || !a.ours(c.Value) {
				continue
			}
			for _, m := range c.Value.Messages {
				in, ok := normalize(m, c.Value.Contacts)
				if !ok {
					a.Ignore()
					continue
				}
				if err := deliver(ctx, in); err != nil {
					return fmt.Errorf("deliver %s: %w", in.Chat, err)
				}
				if err := a.noteWindow(ctx, in.Chat, in.At); err != nil {
					return err
				}
				stored = append(stored, in)
			}
			for _, s := range c.Value.Statuses {
				if err := a.status(ctx, s, deliver); err != nil {
					return err
				}
			}
		}
	}
	go a.markRead(stored)
	return nil
}

// ours reports whether a change is for the configured number (one app may
// send the changes of several numbers to one URL).
func (a *Adapter) ours(v value) bool {
	id := v.Metadata.PhoneNumberID
	return id == "" || id == a.cfg.PhoneNumberID
}

// normalize turns a message into the Inbound to deliver; ok is false for
// what the gateway ignores: a sender that is no wa_id, reactions, system
// messages. Media the gateway cannot read (video, documents, contacts) is
// KindUnsupported: the player gets the notice.
func normalize(m message, contacts []contact) (botgw.Inbound, bool) {
	if !digits.MatchString(m.From) || m.ID == "" {
		return botgw.Inbound{}, false
	}
	at := sentAt(m.Timestamp)
	in := botgw.Inbound{
		Chat: chatKey(m.From), Kind: botgw.KindText, ID: m.ID, UserID: m.From,
		UserName: name(m.From, contacts), At: at,
		Meta: map[string]string{metaMessageID: m.ID, metaSentAt: strconv.FormatInt(at.Unix(), 10)},
	}
	if !content(m, &in) {
		switch m.Type {
		case "reaction", "edit", "revoke", "system", "unknown", "ephemeral", "request_welcome", "order":
			return botgw.Inbound{}, false
		}
		in.Kind = botgw.KindUnsupported
	}
	return in, true
}

// content reads what m carries into in; false when the gateway cannot
// read it.
func content(m message, in *botgw.Inbound) bool {
	switch {
	case m.Type == "text" && m.Text != nil:
		in.Text = m.Text.Body
	case m.Type == "image" && m.Image != nil:
		in.Text, in.Media = m.Image.Caption, &botgw.Media{Kind: botgw.MediaPhoto, Ref: m.Image.ID, MIME: m.Image.MIMEType}
	case m.Type == "sticker" && m.Sticker != nil:
		in.Media = &botgw.Media{Kind: botgw.MediaPhoto, Ref: m.Sticker.ID, MIME: m.Sticker.MIMEType}
	case m.Type == "audio" && m.Audio != nil: // a voice note (voice: true) or an audio file: both transcribed
		in.Media = &botgw.Media{Kind: botgw.MediaVoice, Ref: m.Audio.ID, MIME: m.Audio.MIMEType}
	case m.Type == "location" && m.Location != nil:
		l := m.Location
		in.Location = &botgw.Location{Latitude: l.Latitude, Longitude: l.Longitude, Title: l.Name, Address: l.Address}
		if in.Location.Validate() != nil {
			return false
		}
		in.Text = in.Location.String()
	case m.Type == "interactive" && m.Interactive != nil:
		return tap(m.Interactive, in)
	case m.Type == "button" && m.Button != nil: // a template's quick reply
		in.Text, in.Tap = m.Button.Text, &botgw.Tap{Data: m.Button.Payload}
	default:
		return false
	}
	return true
}

// tap reads a tap on a reply button or a list row the gateway sent. Its id
// is channels.TapData: the engine finds the whole label in the history
// (list rows show at most 24 characters); an id the gateway did not write
// keeps the title the player saw.
func tap(i *interactive, in *botgw.Inbound) bool {
	r := i.ButtonReply
	if i.Type == "list_reply" {
		r = i.ListReply
	}
	if r == nil {
		return false
	}
	t, ok := channels.ParseTapData(r.ID)
	in.Tap = &t
	if !ok || t.Ref == "" {
		in.Text = r.Title
	}
	return true
}

func name(waID string, contacts []contact) string {
	for _, c := range contacts {
		if c.WaID == waID {
			return c.Profile.Name
		}
	}
	return ""
}

// sentAt reads a message's timestamp; a missing or bad one is now.
func sentAt(ts string) time.Time {
	s, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || s <= 0 {
		return time.Now().UTC()
	}
	return time.Unix(s, 0).UTC()
}
