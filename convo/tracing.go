package convo

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/botgw/botgw"
)

// Span names. A "turn" span is the parent of the turn's "provider" (one per
// model call), "tool" (one per tool call), "commit" and "delivery" spans.
// Spans never carry message text or chat keys, and errors are recorded as a
// status, not as their message (which may quote the conversation).
const (
	spanTurn     = "turn"
	spanProvider = "provider"
	spanTool     = "tool"
	spanCommit   = "commit"
	spanDelivery = "delivery"
)

// Span attribute keys.
const (
	attrChannel        = attribute.Key("botgw.channel")
	attrOutcome        = attribute.Key("botgw.outcome")
	attrToolCalls      = attribute.Key("botgw.tool_calls")
	attrStateBytes     = attribute.Key("botgw.state_bytes")
	attrCompacted      = attribute.Key("botgw.compacted")
	attrProvider       = attribute.Key("gen_ai.provider.name")
	attrInputTokens    = attribute.Key("gen_ai.usage.input_tokens")
	attrOutputTokens   = attribute.Key("gen_ai.usage.output_tokens")
	attrToolName       = attribute.Key("gen_ai.tool.name")
	attrHTTPStatusCode = attribute.Key("http.response.status_code")
)

// noopTracer is the tracer when Deps.Tracer is nil: its spans record
// nothing and cost next to nothing.
var noopTracer trace.Tracer = noop.NewTracerProvider().Tracer("")

// startSpan starts a child of ctx's span, tagged with the chat's channel.
func (e *Engine) startSpan(ctx context.Context, name, channel string) (context.Context, trace.Span) {
	ctx, span := e.deps.Tracer.Start(ctx, name)
	if span.IsRecording() {
		span.SetAttributes(attrChannel.String(channel))
	}
	return ctx, span
}

// tagTurnSpan tags the turn span with what the turn did (never its text).
func tagTurnSpan(span trace.Span, s TurnStats) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attrOutcome.String(s.Outcome), attrToolCalls.Int(s.ToolCalls),
		attrInputTokens.Int(s.Usage.InputTokens), attrOutputTokens.Int(s.Usage.OutputTokens),
		attrStateBytes.Int(s.StateSize), attrCompacted.Bool(s.Compacted))
	if s.ProviderStatus != 0 {
		span.SetAttributes(attrHTTPStatusCode.Int(s.ProviderStatus))
	}
	switch s.Outcome {
	case "provider_error", "commit_error":
		span.SetStatus(codes.Error, s.Outcome)
	}
}

// endProviderSpan tags and ends one model call's span.
func endProviderSpan(span trace.Span, reply botgw.Reply, err error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	if err != nil {
		if pe, ok := errors.AsType[*botgw.ProviderError](err); ok && pe.Status != 0 {
			span.SetAttributes(attrHTTPStatusCode.Int(pe.Status))
		}
		span.SetStatus(codes.Error, "provider call failed")
		return
	}
	span.SetAttributes(attrProvider.String(reply.Provider),
		attrInputTokens.Int(reply.Usage.InputTokens), attrOutputTokens.Int(reply.Usage.OutputTokens))
}

// endSpan ends span, marking it failed (without the error's text) if err
// is set.
func endSpan(span trace.Span, err error, failure string) {
	if err != nil && span.IsRecording() {
		span.SetStatus(codes.Error, failure)
	}
	span.End()
}
