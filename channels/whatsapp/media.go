package whatsapp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"google.golang.org/protobuf/proto"

	"github.com/botgw/botgw"
)

// mediaRef is a photo or a voice note or audio file as a reference the
// turn downloads with: the message's download fields (direct path, media
// key, hashes, length) without its thumbnail. The direct path is kept at
// once: a CDN URL alone expires. withSource adds what a media retry needs.
func mediaRef(m *waE2E.Message) *botgw.Media {
	if img := m.GetImageMessage(); img != nil {
		ref := &waE2E.Message{ImageMessage: &waE2E.ImageMessage{URL: img.URL, DirectPath: img.DirectPath,
			MediaKey: img.MediaKey, FileEncSHA256: img.FileEncSHA256, FileSHA256: img.FileSHA256,
			FileLength: img.FileLength, Mimetype: img.Mimetype}}
		return &botgw.Media{Kind: botgw.MediaPhoto, Ref: encodeRef(ref), MIME: img.GetMimetype(), Size: int64(img.GetFileLength())}
	}
	if au := m.GetAudioMessage(); au != nil {
		ref := &waE2E.Message{AudioMessage: &waE2E.AudioMessage{URL: au.URL, DirectPath: au.DirectPath,
			MediaKey: au.MediaKey, FileEncSHA256: au.FileEncSHA256, FileSHA256: au.FileSHA256,
			FileLength: au.FileLength, Mimetype: au.Mimetype, PTT: au.PTT, Seconds: au.Seconds}}
		return &botgw.Media{Kind: botgw.MediaVoice, Ref: encodeRef(ref), MIME: au.GetMimetype(),
			Size: int64(au.GetFileLength()), Seconds: int(au.GetSeconds())}
	}
	return nil
}

// sourcedRef is a media reference with the message it came in: the
// phone is asked to upload the file again by that message's id and chat.
type sourcedRef struct {
	Msg    []byte `json:"m"` // the download fields, protobuf
	ID     string `json:"id"`
	Chat   string `json:"chat"`
	Sender string `json:"sender,omitempty"`
	Group  bool   `json:"group,omitempty"`
}

// withSource adds the message's id, chat and sender to m's reference.
func withSource(m *botgw.Media, info types.MessageInfo) *botgw.Media {
	if m == nil {
		return nil
	}
	msg, _ := base64.RawURLEncoding.DecodeString(m.Ref) // written by encodeRef
	b, _ := json.Marshal(sourcedRef{Msg: msg, ID: info.ID, Chat: info.Chat.String(),
		Sender: info.Sender.String(), Group: info.IsGroup})
	out := *m
	out.Ref = string(b)
	return &out
}

func encodeRef(m *waE2E.Message) string {
	b, _ := proto.Marshal(m) // cannot fail for a message built of set fields
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeRef reads a reference mediaRef or withSource wrote; a bare
// reference has no source, so the phone cannot be asked for it again.
func decodeRef(ref string) (*waE2E.Message, *types.MessageInfo, error) {
	var src sourcedRef
	b, err := base64.RawURLEncoding.DecodeString(ref)
	if err != nil {
		if err := json.Unmarshal([]byte(ref), &src); err != nil {
			return nil, nil, err
		}
		b = src.Msg
	}
	var m waE2E.Message
	if err := proto.Unmarshal(b, &m); err != nil {
		return nil, nil, err
	}
	if src.ID == "" {
		return &m, nil, nil
	}
	info := &types.MessageInfo{ID: src.ID}
	info.IsGroup = src.Group
	if info.Chat, err = types.ParseJID(src.Chat); err == nil {
		info.Sender, err = types.ParseJID(src.Sender)
	}
	return &m, info, err
}

var _ botgw.MediaFetcher = (*Adapter)(nil)

// mediaMessage is an image or audio message whose file can be downloaded.
type mediaMessage interface {
	whatsmeow.DownloadableMessage
	GetFileLength() uint64
}

// FetchMedia downloads and decrypts a photo or recording with whatsmeow's
// Download, on the replica holding the WhatsApp session. A file whose
// length is over limit is botgw.ErrTooLarge before any download. When the
// CDN no longer has it (403, 404, 410) the phone is asked to upload it
// again (retryMedia); a file it cannot give is botgw.ErrNotFound.
func (a *Adapter) FetchMedia(ctx context.Context, m botgw.Media, limit int64) ([]byte, error) {
	msg, info, err := decodeRef(m.Ref)
	if err != nil {
		return nil, fmt.Errorf("whatsapp media reference: %w", err)
	}
	var d mediaMessage = msg.GetImageMessage()
	if msg.GetAudioMessage() != nil {
		d = msg.GetAudioMessage()
	}
	if size := int64(d.GetFileLength()); limit > 0 && size > limit {
		return nil, fmt.Errorf("whatsapp file of %d bytes: %w", size, botgw.ErrTooLarge)
	}
	cli := a.current()
	if cli == nil {
		return nil, fmt.Errorf("whatsapp media: not connected to WhatsApp on this replica (%s)", a.state.get().State)
	}
	data, err := cli.Download(ctx, d)
	if expired(err) && info != nil {
		data, err = a.retryMedia(ctx, cli, msg, info)
	}
	switch {
	case expired(err):
		return nil, fmt.Errorf("whatsapp media download: %w: %w", err, botgw.ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("whatsapp media download: %w", err)
	}
	return data, nil
}

// expired reports a download the CDN refused because its copy is gone or
// its URL expired.
func expired(err error) bool {
	return errors.Is(err, whatsmeow.ErrMediaDownloadFailedWith403) ||
		errors.Is(err, whatsmeow.ErrMediaDownloadFailedWith404) ||
		errors.Is(err, whatsmeow.ErrMediaDownloadFailedWith410)
}
