package main

import (
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"
)

// newLogger builds the process logger: text on a terminal, JSON otherwise,
// unless log.format says which; with log.redact_chats, chat keys are hashed.
func newLogger(c LogConfig, w io.Writer) *slog.Logger {
	level := slog.LevelInfo
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	format := c.Format
	if format == "" {
		format = "json"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "text"
		}
	}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if format == "text" {
		h = slog.NewTextHandler(w, opts)
	}
	if c.RedactChats {
		h = redactChats{h}
	}
	return slog.New(h)
}
