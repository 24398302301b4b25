package media

import (
	"context"

	"github.com/botgw/botgw"
)

// photo fetches the largest rendition of in's photo under MaxImageBytes,
// checks its type and scales it to the provider's limit.
func (r *Reader) photo(ctx context.Context, in botgw.Inbound) (botgw.Message, string) {
	if !r.cfg.Images {
		return botgw.Message{}, "off"
	}
	m, ok := in.Media.Pick(r.cfg.MaxImageBytes)
	if !ok {
		return botgw.Message{}, "too_large"
	}
	release, ok := r.acquire(ctx)
	if !ok {
		return botgw.Message{}, "failed"
	}
	data, outcome := r.fetch(ctx, in, m, r.cfg.MaxImageBytes)
	release()
	if outcome != "ok" {
		return botgw.Message{}, outcome
	}
	mime := sniff(data)
	if mime == "" {
		r.log.Warn("photo is not a JPEG, PNG, GIF or WebP image", "channel", in.Chat.Channel)
		return botgw.Message{}, "unsupported"
	}
	img, err := fit(botgw.Image{MIME: mime, Data: data}, r.cfg.ProviderImageBytes)
	if err != nil {
		r.log.Warn("photo could not be scaled to the provider's limit", "channel", in.Chat.Channel, "err", err)
		return botgw.Message{}, "too_large"
	}
	return botgw.Message{Text: marked(botgw.MediaPhoto, in.Text), Media: botgw.MediaPhoto,
		Images: []botgw.Image{img}}, "ok"
}
