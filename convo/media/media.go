// Package media reads what players send besides text for the turn that
// answers it: it downloads a photo or a recording through its channel
// (botgw.MediaFetcher), checks and sniffs it, scales a photo down to the
// provider's limit, and transcribes voice notes and audio files. Downloads
// and transcriptions have a concurrency bound of their own, so a burst of
// voice notes never holds text turns back. Nothing here is stored: the
// history keeps "[photo]" and the caption, or "[voice note]" and the
// transcript.
package media

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/botgw/botgw"
)

// Config holds the media knobs; zero values take the defaults.
type Config struct {
	// Images sends photos to the model; off, a photo gets OffNotice.
	Images bool
	// MaxImageBytes: larger photos get a notice instead (of a platform's
	// renditions the largest under it is taken); default 5 MiB.
	MaxImageBytes int64
	// ProviderImageBytes is the largest photo the provider takes; larger
	// ones are scaled down and re-encoded as JPEG. 0: no limit.
	ProviderImageBytes int64
	// MaxSeconds: longer recordings get a notice instead; default 300.
	MaxSeconds int
	// MaxAudioBytes bounds a recording's download; default 25 MiB (the
	// OpenAI transcription limit).
	MaxAudioBytes int64
	// Concurrency bounds the downloads and transcriptions in flight on
	// one replica; default 32.
	Concurrency int
	// Attempts is how often a failed download is tried; default 3,
	// Backoff the first pause between tries (doubling); default 500ms.
	Attempts int
	Backoff  time.Duration
	// Timeout bounds one download or transcription attempt; default 60s.
	Timeout time.Duration
	// LogContent lets transcripts into the debug log; off: never logged.
	LogContent bool
	// Notices to the player; empty: the defaults below.
	Notices Notices
}

// Notices are what the player reads when media cannot be used.
type Notices struct {
	Off           string // images or transcription switched off
	PhotoTooLarge string
	PhotoFailed   string
	VoiceTooLong  string
	VoiceFailed   string
}

func (c Config) withDefaults() Config {
	c.MaxImageBytes = cmp.Or(c.MaxImageBytes, 5<<20)
	c.MaxSeconds = cmp.Or(c.MaxSeconds, 300)
	c.MaxAudioBytes = cmp.Or(c.MaxAudioBytes, 25<<20)
	c.Concurrency = cmp.Or(c.Concurrency, 32)
	c.Attempts = cmp.Or(c.Attempts, 3)
	c.Backoff = cmp.Or(c.Backoff, 500*time.Millisecond)
	c.Timeout = cmp.Or(c.Timeout, 60*time.Second)
	n := &c.Notices
	n.Off = cmp.Or(n.Off, "Sorry, I can only read text for now.")
	n.PhotoTooLarge = cmp.Or(n.PhotoTooLarge, "That photo is too large for me to look at. Could you send a smaller one?")
	n.PhotoFailed = cmp.Or(n.PhotoFailed, "Sorry, I couldn't open your photo. Could you send it again?")
	n.VoiceTooLong = cmp.Or(n.VoiceTooLong, "That voice note is too long for me. Could you send a shorter one, or type it?")
	n.VoiceFailed = cmp.Or(n.VoiceFailed, "Sorry, I couldn't listen to your voice note. Could you send it again, or type it?")
	return c
}

// Transcriber turns a recording into text. *openai.Transcriber is one.
type Transcriber interface {
	// Transcribe returns the words spoken in audio; name carries the
	// file's extension (servers tell the format by it). It blocks; safe
	// for concurrent use.
	Transcribe(ctx context.Context, audio []byte, name string) (string, error)
}

// Deps are the reader's collaborators.
type Deps struct {
	// Fetchers download media, by channel name.
	Fetchers map[string]botgw.MediaFetcher
	// Transcriber transcribes voice notes; nil: they get Notices.Off.
	Transcriber Transcriber
	// Observe hears of every media item read: its kind, the outcome (ok,
	// off, too_large, too_long, not_found, unsupported, failed) and how
	// long it took. Optional (metrics).
	Observe func(kind botgw.MediaKind, outcome string, d time.Duration)
	Log     *slog.Logger
}

// Reader reads media for turns (convo.MediaReader). Safe for concurrent use.
type Reader struct {
	cfg  Config
	deps Deps
	sem  chan struct{}
	log  *slog.Logger
	// sleep waits d or until ctx ends; tests replace it.
	sleep func(ctx context.Context, d time.Duration) bool
}

// New builds a reader; it does no I/O.
func New(cfg Config, deps Deps) *Reader {
	cfg = cfg.withDefaults()
	log := deps.Log
	if log == nil {
		log = slog.Default()
	}
	return &Reader{cfg: cfg, deps: deps, sem: make(chan struct{}, cfg.Concurrency), log: log, sleep: sleep}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Read returns the user message for in (see convo.MediaReader): on
// success the marker with the caption or transcript (and the photo for
// this turn); otherwise the marker and the caption, and the notice.
func (r *Reader) Read(ctx context.Context, in botgw.Inbound) (botgw.Message, string) {
	start := time.Now()
	kind := in.Media.Kind
	var (
		m       botgw.Message
		outcome string
	)
	if kind == botgw.MediaVoice {
		m, outcome = r.voice(ctx, in)
	} else {
		m, outcome = r.photo(ctx, in)
	}
	if r.deps.Observe != nil {
		r.deps.Observe(kind, outcome, time.Since(start))
	}
	if outcome == "ok" {
		return m, ""
	}
	m = botgw.Message{Text: marked(kind, in.Text), Media: kind}
	return m, r.notice(kind, outcome)
}

// notice is what the player reads after outcome.
func (r *Reader) notice(kind botgw.MediaKind, outcome string) string {
	n := r.cfg.Notices
	switch {
	case outcome == "off":
		return n.Off
	case kind == botgw.MediaVoice && (outcome == "too_long" || outcome == "too_large"):
		return n.VoiceTooLong
	case kind == botgw.MediaVoice:
		return n.VoiceFailed
	case outcome == "too_large":
		return n.PhotoTooLarge
	}
	return n.PhotoFailed
}

// marked is the marker followed by text, if any.
func marked(kind botgw.MediaKind, text string) string {
	if text == "" {
		return kind.Marker()
	}
	return kind.Marker() + " " + text
}
