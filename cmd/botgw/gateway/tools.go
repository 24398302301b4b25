package gateway

import (
	"fmt"
	"log/slog"

	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/convo/limits"
	"github.com/botgw/botgw/convo/tools"
)

// buildTools builds the HTTP tool runner; nil when no tools are declared.
func buildTools(decl []tools.Config, log *slog.Logger) (convo.Tools, error) {
	if len(decl) == 0 {
		return nil, nil
	}
	h, err := tools.NewHTTP(decl, log)
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	return h, nil
}

// engine maps the limits config onto the engine's.
func (l LimitsConfig) engine() limits.Config {
	return limits.Config{DailyTokens: l.DailyTokensPerChat, TurnsPerMinute: l.TurnsPerMinutePerChat,
		DailyNotice: l.DailyTokensReply, MaxInputChars: l.MaxInputChars, CutNotice: l.CutNotice}
}
