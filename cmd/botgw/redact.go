package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"

	"github.com/botgw/botgw"
)

// redactChats is a slog.Handler that replaces every "chat" attribute with
// a hash of the chat key, keeping the channel readable
// ("telegram:#9f86d081884c"), so logs correlate turns without naming users.
type redactChats struct{ next slog.Handler }

func (h redactChats) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h redactChats) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h redactChats) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = redactAttr(a)
	}
	return redactChats{h.next.WithAttrs(red)}
}

func (h redactChats) WithGroup(name string) slog.Handler { return redactChats{h.next.WithGroup(name)} }

func redactAttr(a slog.Attr) slog.Attr {
	if a.Key != "chat" {
		return a
	}
	return slog.String("chat", hashChat(a.Value.Resolve().String()))
}

// hashChat hashes a chat key, or any other chat id an adapter logs.
func hashChat(s string) string {
	sum := sha256.Sum256([]byte(s))
	h := "#" + hex.EncodeToString(sum[:6])
	if k, err := botgw.ParseChatKey(s); err == nil {
		return k.Channel + ":" + h
	}
	return h
}
