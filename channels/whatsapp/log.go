package whatsapp

import (
	"context"
	"fmt"
	"log/slog"

	waLog "go.mau.fi/whatsmeow/util/log"
)

// slogLogger routes whatsmeow's printf-style logs to the injected slog
// logger, tagged with the whatsmeow module that wrote them.
type slogLogger struct {
	log    *slog.Logger
	module string
}

func waLogger(log *slog.Logger, module string) waLog.Logger {
	return slogLogger{log: log, module: module}
}

func (l slogLogger) emit(level slog.Level, msg string, args []any) {
	ctx := context.Background()
	if !l.log.Enabled(ctx, level) {
		return
	}
	l.log.Log(ctx, level, fmt.Sprintf(msg, args...), "module", "whatsmeow/"+l.module)
}

func (l slogLogger) Errorf(msg string, args ...any) { l.emit(slog.LevelError, msg, args) }
func (l slogLogger) Warnf(msg string, args ...any)  { l.emit(slog.LevelWarn, msg, args) }
func (l slogLogger) Infof(msg string, args ...any)  { l.emit(slog.LevelInfo, msg, args) }
func (l slogLogger) Debugf(msg string, args ...any) { l.emit(slog.LevelDebug, msg, args) }

func (l slogLogger) Sub(module string) waLog.Logger {
	return slogLogger{log: l.log, module: l.module + "/" + module}
}
