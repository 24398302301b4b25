package gateway

import (
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"
)

// NewLogger builds the process logger: text on a terminal, JSON otherwise,
// unless log.format says which. Every attribute goes through the log
// policy (redact.go): chat keys and user ids hashed with log.redact_chats,
// message text only with log.content, no key twice on a line.
func NewLogger(c LogConfig, w io.Writer) *slog.Logger {
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
	log := slog.New(&privateHandler{next: h, p: newLogPolicy(c)})
	if c.RedactChats && c.RedactKey == "" {
		log.Info("log.redact_key is not set: chat hashes use a random key of this process, so they differ between replicas and restarts")
	}
	return log
}
