package gateway

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"regexp"
	"slices"

	"github.com/botgw/botgw"
)

// logPolicy is the one place that decides what a log attribute may carry
// (log.redact_chats, log.redact_key, log.content). Every log line of the
// process goes through a privateHandler applying it.
type logPolicy struct {
	redact  bool   // chat keys and user ids become keyed hashes
	content bool   // message text may be logged
	key     []byte // the HMAC key of the hashes
}

// idKeys are the attributes that name a chat, a Redis key or work mark built
// from one, or a person.
var idKeys = []string{"chat", "key", "member", "target", "actor", "user", "user_id", "jid", "sender", "phone", "from", "to"}

// contentKeys are the attributes that carry what people wrote.
var contentKeys = []string{"text", "reply", "entry", "content", "body"}

// idInText finds chat keys ("telegram:12345", Redis keys holding one) and
// WhatsApp JIDs inside free text such as error messages.
var idInText = regexp.MustCompile(`\b(?:telegram|slack|whatsapp|web):[^\s{}"',;()]+|\b[0-9]{5,}(?:[.:][0-9]+)*@[a-z.]+\b`)

// newLogPolicy keys the hashes with key; without one, with a random key:
// hashes then differ between replicas and restarts.
func newLogPolicy(c LogConfig) *logPolicy {
	p := &logPolicy{redact: c.RedactChats, content: c.Content, key: []byte(c.RedactKey)}
	if len(p.key) == 0 {
		p.key = make([]byte, 32)
		_, _ = rand.Read(p.key)
	}
	return p
}

// hashChat hashes a chat key, keeping the channel readable
// ("telegram:#9f86d081884c"), or any other id ("#…").
func (p *logPolicy) hashChat(s string) string {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte(s))
	h := "#" + hex.EncodeToString(m.Sum(nil)[:6])
	if k, err := botgw.ParseChatKey(s); err == nil {
		return k.Channel + ":" + h
	}
	return h
}

// attr returns what a may carry, and false when it must be left out.
func (p *logPolicy) attr(a slog.Attr) (slog.Attr, bool) {
	a.Value = a.Value.Resolve()
	switch {
	case !p.content && slices.Contains(contentKeys, a.Key):
		return a, false
	case a.Value.Kind() == slog.KindGroup:
		var out []slog.Attr
		for _, g := range a.Value.Group() {
			if g, ok := p.attr(g); ok {
				out = append(out, g)
			}
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}, true
	case !p.redact:
		return a, true
	case slices.Contains(idKeys, a.Key):
		return slog.String(a.Key, p.hashChat(a.Value.String())), true
	}
	return p.scrub(a), true
}

// scrub replaces the ids inside a free-text value (an error, a string, a
// printed struct) by their hashes.
func (p *logPolicy) scrub(a slog.Attr) slog.Attr {
	var s string
	switch a.Value.Kind() {
	case slog.KindString:
		s = a.Value.String()
	case slog.KindAny:
		s = fmt.Sprint(a.Value.Any())
	default:
		return a
	}
	out := idInText.ReplaceAllStringFunc(s, p.hashChat)
	if out == s {
		return a
	}
	return slog.String(a.Key, out)
}

// privateHandler applies a logPolicy to every attribute and leaves out a
// key already on the line (a "channel" added by both the wiring and the
// adapter), so every JSON line has unique keys.
type privateHandler struct {
	next slog.Handler
	p    *logPolicy
	seen []string // keys added with WithAttrs at the current level
}

func (h *privateHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *privateHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	seen := slices.Clone(h.seen)
	r.Attrs(func(a slog.Attr) bool {
		if a, ok := h.keep(a, &seen); ok {
			out.AddAttrs(a)
		}
		return true
	})
	return h.next.Handle(ctx, out)
}

// keep applies the policy to a and reports false for a key already in seen.
func (h *privateHandler) keep(a slog.Attr, seen *[]string) (slog.Attr, bool) {
	if a.Key == "" || slices.Contains(*seen, a.Key) {
		return a, a.Key == "" && a.Value.Kind() == slog.KindGroup // inline groups stay
	}
	a, ok := h.p.attr(a)
	if ok {
		*seen = append(*seen, a.Key)
	}
	return a, ok
}

func (h *privateHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	seen := slices.Clone(h.seen)
	kept := make([]slog.Attr, 0, len(attrs))
	for _, a := range attrs {
		if a, ok := h.keep(a, &seen); ok {
			kept = append(kept, a)
		}
	}
	return &privateHandler{next: h.next.WithAttrs(kept), p: h.p, seen: seen}
}

func (h *privateHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &privateHandler{next: h.next.WithGroup(name), p: h.p}
}
