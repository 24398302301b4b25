package whatsapp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"go.mau.fi/whatsmeow"

	"go.mau.fi/whatsmeow/proto/waE2E"
	"google.golang.org/protobuf/proto"

	"github.com/botgw/botgw"
)

// mediaRef is a photo or a voice note or audio file as a reference the
// turn downloads with: the message's download fields (direct path, media
// key, hashes, length) without its thumbnail, base64-encoded protobuf.
// The direct path is kept at once: a CDN URL alone expires.
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

func encodeRef(m *waE2E.Message) string {
	b, _ := proto.Marshal(m) // cannot fail for a message built of set fields
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeRef reads a reference mediaRef wrote.
func decodeRef(ref string) (*waE2E.Message, error) {
	b, err := base64.RawURLEncoding.DecodeString(ref)
	if err != nil {
		return nil, err
	}
	var m waE2E.Message
	if err := proto.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

var _ botgw.MediaFetcher = (*Adapter)(nil)

// FetchMedia downloads and decrypts a photo or recording with whatsmeow's
// Download, on the replica holding the WhatsApp session. A file whose
// length is over limit is botgw.ErrTooLarge before any download; one the
// CDN no longer has (404, 410) is botgw.ErrNotFound.
func (a *Adapter) FetchMedia(ctx context.Context, m botgw.Media, limit int64) ([]byte, error) {
	msg, err := decodeRef(m.Ref)
	if err != nil {
		return nil, fmt.Errorf("whatsapp media reference: %w", err)
	}
	var d whatsmeow.DownloadableMessage = msg.GetImageMessage()
	size := int64(msg.GetImageMessage().GetFileLength())
	if msg.GetAudioMessage() != nil {
		d, size = msg.GetAudioMessage(), int64(msg.GetAudioMessage().GetFileLength())
	}
	if limit > 0 && size > limit {
		return nil, fmt.Errorf("whatsapp file of %d bytes: %w", size, botgw.ErrTooLarge)
	}
	cli := a.current()
	if cli == nil {
		return nil, fmt.Errorf("whatsapp media: not connected to WhatsApp on this replica (%s)", a.state.get().State)
	}
	data, err := cli.Download(ctx, d)
	switch {
	case errors.Is(err, whatsmeow.ErrMediaDownloadFailedWith404), errors.Is(err, whatsmeow.ErrMediaDownloadFailedWith410):
		return nil, fmt.Errorf("whatsapp media download: %w: %w", err, botgw.ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("whatsapp media download: %w", err)
	}
	return data, nil
}
