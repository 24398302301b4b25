package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// tracingEnvVars switch tracing on: the standard OTLP endpoint variables.
// Everything else (headers, timeout, sampler, batching, service name) is
// read by the OpenTelemetry SDK from the standard OTEL_* variables.
var tracingEnvVars = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"}

// tracingShutdownGrace bounds how long exit waits to flush the last spans.
const tracingShutdownGrace = 5 * time.Second

// startTracing returns the engine's tracer and a function that flushes and
// stops it. Without an OTLP endpoint in the environment tracing is off: the
// tracer is nil (the engine's no-op) and nothing is started.
func startTracing(ctx context.Context, log *slog.Logger) (trace.Tracer, func(), error) {
	if !tracingEnabled() {
		return nil, func() {}, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("tracing exporter: %w", err)
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "botgw")),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, nil, fmt.Errorf("tracing resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	log.Info("tracing on: exporting spans over OTLP/HTTP")
	stop := func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tracingShutdownGrace)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			log.Warn("tracing shutdown", "err", err)
		}
	}
	return tp.Tracer("github.com/botgw/botgw/convo"), stop, nil
}

// tracingEnabled says whether an OTLP endpoint is set in the environment.
func tracingEnabled() bool {
	for _, v := range tracingEnvVars {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}
