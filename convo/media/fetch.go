package media

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/botgw/botgw"
)

// acquire takes one of the reader's slots for a download or a
// transcription; release gives it back. ok is false when ctx ended first.
func (r *Reader) acquire(ctx context.Context) (release func(), ok bool) {
	select {
	case r.sem <- struct{}{}:
		return func() { <-r.sem }, true
	case <-ctx.Done():
		return nil, false
	}
}

// fetch downloads m through in's channel, trying again with backoff; a
// file that is too large or gone is not tried again.
func (r *Reader) fetch(ctx context.Context, in botgw.Inbound, m botgw.Media, limit int64) ([]byte, string) {
	f := r.deps.Fetchers[in.Chat.Channel]
	if f == nil {
		return nil, "off"
	}
	var err error
	for attempt := 1; ; attempt++ {
		var data []byte
		data, err = r.fetchOnce(ctx, f, m, limit)
		switch {
		case err == nil:
			return data, "ok"
		case errors.Is(err, botgw.ErrTooLarge):
			return nil, "too_large"
		case errors.Is(err, botgw.ErrNotFound):
			r.log.Warn("media file gone from the platform", "channel", in.Chat.Channel, "kind", m.Kind, "err", err)
			return nil, "not_found"
		}
		if attempt >= r.cfg.Attempts || !r.sleep(ctx, r.cfg.Backoff<<(attempt-1)) {
			break
		}
	}
	r.log.Warn("media download failed", "channel", in.Chat.Channel, "kind", m.Kind, "attempts", r.cfg.Attempts, "err", err)
	return nil, "failed"
}

func (r *Reader) fetchOnce(ctx context.Context, f botgw.MediaFetcher, m botgw.Media, limit int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	data, err := f.FetchMedia(ctx, m, limit)
	if err == nil && int64(len(data)) > limit {
		return nil, fmt.Errorf("%d bytes: %w", len(data), botgw.ErrTooLarge)
	}
	return data, err
}

// imageTypes are the photo formats both providers take.
var imageTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

// sniff is the photo's type read from its bytes, or "" for anything the
// providers do not take.
func sniff(data []byte) string {
	t, _, _ := strings.Cut(http.DetectContentType(data), ";")
	for _, ok := range imageTypes {
		if t == ok {
			return t
		}
	}
	return ""
}
