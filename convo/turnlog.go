package convo

import (
	"context"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/botgw/botgw"
)

// observe reports a finished turn to the hooks and to the turn span, and
// writes its one log line: outcome, duration, tokens and state size; the
// text only with LogContent.
func (e *Engine) observe(ctx context.Context, s TurnStats, in []botgw.Inbound, out []botgw.Outbound, log *slog.Logger) {
	s.Replies = len(out)
	e.deps.Hooks.turn(s)
	tagTurnSpan(trace.SpanFromContext(ctx), s)
	attrs := []any{"outcome", s.Outcome, "duration", s.Duration, "queue_wait", s.QueueWait,
		"provider", s.Provider, "commit", s.Commit, "tokens_in", s.Usage.InputTokens,
		"tokens_out", s.Usage.OutputTokens, "tool_calls", s.ToolCalls, "state_bytes", s.StateSize,
		"compacted", s.Compacted}
	if e.cfg.LogContent {
		attrs = append(attrs, "text", inboundText(in), "reply", outboundText(out))
	}
	log.Info("turn", attrs...)
}

func inboundText(in []botgw.Inbound) string {
	parts := make([]string, 0, len(in))
	for _, m := range in {
		if m.Kind == botgw.KindEvent && m.Event != nil {
			parts = append(parts, m.Event.Text)
			continue
		}
		parts = append(parts, m.Text)
	}
	return strings.Join(parts, "\n")
}

func outboundText(out []botgw.Outbound) string {
	parts := make([]string, 0, len(out))
	for _, m := range out {
		parts = append(parts, m.Text)
	}
	return strings.Join(parts, "\n")
}
