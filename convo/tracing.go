package convo

import (
	"context"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/botgw/botgw/convo/spans"
)

// startSpan starts a child of ctx's span, tagged with the chat's channel
// (convo/spans names the spans of a turn).
func (e *Engine) startSpan(ctx context.Context, name, channel string) (context.Context, trace.Span) {
	return spans.Start(ctx, e.deps.Tracer, name, channel)
}

// tagTurnSpan tags the turn span with what the turn did (never its text).
func tagTurnSpan(span trace.Span, s TurnStats) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(spans.AttrOutcome.String(s.Outcome), spans.AttrToolCalls.Int(s.ToolCalls),
		spans.AttrInputTokens.Int(s.Usage.InputTokens), spans.AttrOutputTokens.Int(s.Usage.OutputTokens),
		spans.AttrStateBytes.Int(s.StateSize), spans.AttrCompacted.Bool(s.Compacted))
	if s.ProviderStatus != 0 {
		span.SetAttributes(spans.AttrHTTPStatusCode.Int(s.ProviderStatus))
	}
	switch s.Outcome {
	case "provider_error", "commit_error":
		span.SetStatus(codes.Error, s.Outcome)
	}
}
