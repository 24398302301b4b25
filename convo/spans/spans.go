// Package spans names the OpenTelemetry spans of a turn and their
// attributes, and ends them. A "turn" span is the parent of the turn's
// "provider" (one per model call), "tool" (one per tool call), "commit"
// and "delivery" spans. Spans never carry message text or chat keys, and
// errors are recorded as a status, not as their message (which may quote
// the conversation). ProfileTurn labels a turn's CPU profile samples.
package spans

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/botgw/botgw"
)

// Span names.
const (
	Turn     = "turn"
	Provider = "provider"
	Tool     = "tool"
	Commit   = "commit"
	Delivery = "delivery"
)

// Attribute keys.
const (
	AttrChannel        = attribute.Key("botgw.channel")
	AttrOutcome        = attribute.Key("botgw.outcome")
	AttrToolCalls      = attribute.Key("botgw.tool_calls")
	AttrStateBytes     = attribute.Key("botgw.state_bytes")
	AttrCompacted      = attribute.Key("botgw.compacted")
	AttrProvider       = attribute.Key("gen_ai.provider.name")
	AttrInputTokens    = attribute.Key("gen_ai.usage.input_tokens")
	AttrOutputTokens   = attribute.Key("gen_ai.usage.output_tokens")
	AttrToolName       = attribute.Key("gen_ai.tool.name")
	AttrHTTPStatusCode = attribute.Key("http.response.status_code")
)

// Noop is the tracer when none is configured: its spans record nothing
// and cost next to nothing.
var Noop trace.Tracer = noop.NewTracerProvider().Tracer("")

// Start starts a child of ctx's span named name, tagged with the chat's
// channel.
func Start(ctx context.Context, t trace.Tracer, name, channel string) (context.Context, trace.Span) {
	ctx, span := t.Start(ctx, name)
	if span.IsRecording() {
		span.SetAttributes(AttrChannel.String(channel))
	}
	return ctx, span
}

// EndProvider tags and ends one model call's span.
func EndProvider(span trace.Span, reply botgw.Reply, err error) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	if err != nil {
		if pe, ok := errors.AsType[*botgw.ProviderError](err); ok && pe.Status != 0 {
			span.SetAttributes(AttrHTTPStatusCode.Int(pe.Status))
		}
		span.SetStatus(codes.Error, "provider call failed")
		return
	}
	span.SetAttributes(AttrProvider.String(reply.Provider),
		AttrInputTokens.Int(reply.Usage.InputTokens), AttrOutputTokens.Int(reply.Usage.OutputTokens))
}

// End ends span, marking it failed (without the error's text, as failure)
// if err is set.
func End(span trace.Span, err error, failure string) {
	if err != nil && span.IsRecording() {
		span.SetStatus(codes.Error, failure)
	}
	span.End()
}
