package botgw

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Location is a position a player shared, in decimal degrees, with the
// venue's title and address when the platform sent a venue.
type Location struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Title     string  `json:"title,omitempty"`
	Address   string  `json:"address,omitempty"`
}

// Validate checks that the coordinates are finite and on the globe; the
// error names the bad field.
func (l Location) Validate() error {
	switch {
	case math.IsNaN(l.Latitude) || l.Latitude < -90 || l.Latitude > 90:
		return errors.New("latitude: want a number from -90 to 90")
	case math.IsNaN(l.Longitude) || l.Longitude < -180 || l.Longitude > 180:
		return errors.New("longitude: want a number from -180 to 180")
	}
	return nil
}

// Coordinates are "53.99212, -1.54181": decimal degrees with at least 5
// decimals.
func (l Location) Coordinates() string {
	return degrees(l.Latitude) + ", " + degrees(l.Longitude)
}

// String is the text a pin stands for in the conversation: the coordinates,
// then the venue's title and address when there are any, one a line.
func (l Location) String() string {
	parts := []string{l.Coordinates()}
	for _, s := range []string{l.Title, l.Address} {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// MapURL links the position on OpenStreetMap.
func (l Location) MapURL() string {
	return fmt.Sprintf("https://www.openstreetmap.org/?mlat=%s&mlon=%s#map=17/%s/%s",
		degrees(l.Latitude), degrees(l.Longitude), degrees(l.Latitude), degrees(l.Longitude))
}

func degrees(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if _, frac, _ := strings.Cut(s, "."); len(frac) >= 5 {
		return s
	}
	return strconv.FormatFloat(v, 'f', 5, 64)
}

// LocationKey is the key of the event that pins a chat's latest position.
const LocationKey = "location"

// MediaKind says what a photo or recording is.
type MediaKind string

const (
	MediaPhoto MediaKind = "photo"
	// MediaVoice is a voice note or an audio file: it is transcribed.
	MediaVoice MediaKind = "voice"
)

// Marker is the literal text that stands for the media in the history:
// "[photo]" or "[voice note]".
func (k MediaKind) Marker() string {
	if k == MediaVoice {
		return "[voice note]"
	}
	return "[photo]"
}

// Media refers to a photo or a recording kept by the platform. The gateway
// stores the reference with the pending input, never the bytes, and the
// turn fetches it (MediaFetcher).
type Media struct {
	Kind MediaKind `json:"kind"`
	// Ref is the platform's reference: a Telegram file_id, a Slack
	// url_private_download, a WhatsApp message's download fields.
	Ref     string `json:"ref,omitempty"`
	MIME    string `json:"mime,omitempty"`
	Size    int64  `json:"size,omitempty"`    // bytes, when the platform says; 0: unknown
	Seconds int    `json:"seconds,omitempty"` // a recording's length, when known
	// Sizes are the renditions of a photo the platform offers (Telegram);
	// Pick chooses one. Empty: Ref is the only one.
	Sizes []MediaSize `json:"sizes,omitempty"`
}

// MediaSize is one rendition of a photo.
type MediaSize struct {
	Ref    string `json:"ref"`
	Size   int64  `json:"size,omitempty"` // bytes; 0: unknown
	Width  int    `json:"w,omitempty"`
	Height int    `json:"h,omitempty"`
}

// Pick returns m narrowed to its largest rendition under limit bytes: by
// size where the platform gave sizes, else by pixels. ok is false when
// every rendition is known to be larger than limit.
func (m Media) Pick(limit int64) (Media, bool) {
	if len(m.Sizes) == 0 {
		return m, limit <= 0 || m.Size <= limit
	}
	best := -1
	for i, s := range m.Sizes {
		if limit > 0 && s.Size > limit {
			continue
		}
		if best < 0 || larger(s, m.Sizes[best]) {
			best = i
		}
	}
	if best < 0 {
		return m, false
	}
	s := m.Sizes[best]
	m.Ref, m.Size, m.Sizes = s.Ref, s.Size, nil
	return m, true
}

func larger(a, b MediaSize) bool {
	if a.Size > 0 && b.Size > 0 && a.Size != b.Size {
		return a.Size > b.Size
	}
	return a.Width*a.Height > b.Width*b.Height
}

// Image is a photo's bytes for one provider call. It is never stored.
type Image struct {
	MIME string // image/jpeg, image/png, image/gif or image/webp
	Data []byte
}

// MediaFetcher is a channel that can download the media its input refers
// to. Optional: a channel without it gets the text-only notice for media.
type MediaFetcher interface {
	// FetchMedia downloads m (one rendition: see Media.Pick) and returns its
	// bytes. A file larger than limit bytes fails with ErrTooLarge without
	// being read whole; a file the platform no longer has fails with
	// ErrNotFound. It blocks until done or ctx ends; safe for concurrent
	// use.
	FetchMedia(ctx context.Context, m Media, limit int64) ([]byte, error)
}
