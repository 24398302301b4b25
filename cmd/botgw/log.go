package main

import (
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"
)

// newLogger builds the process logger: text on a terminal, JSON otherwise,
// unless log.format says which.
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
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
