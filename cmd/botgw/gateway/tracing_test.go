package gateway

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpCollector is a fake OTLP/HTTP trace collector: it decodes each
// protobuf export at /v1/traces and keeps the spans' service and names.
type otlpCollector struct {
	*httptest.Server
	mu    sync.Mutex
	spans []string // "service/span"
}

func newOTLPCollector(t *testing.T) *otlpCollector {
	t.Helper()
	c := &otlpCollector{}
	c.Server = httptest.NewServer(http.HandlerFunc(c.export))
	t.Cleanup(c.Close)
	return c
}

func (c *otlpCollector) export(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP/HTTP protobuf trace export", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.Key == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans = append(c.spans, service+"/"+s.Name)
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

func (c *otlpCollector) received() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.spans...)
}

func TestTracingIsOffWithoutAnEndpoint(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	tracer, stop, err := startTracing(context.Background(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if tracer != nil {
		t.Error("tracing is on without OTEL_EXPORTER_OTLP_ENDPOINT; want it off (the engine's no-op tracer)")
	}
}

func TestTracingExportsSpansToTheOTLPEndpoint(t *testing.T) {
	for _, c := range []struct{ name, envVar, path, service, want string }{
		{"endpoint", "OTEL_EXPORTER_OTLP_ENDPOINT", "", "", "botgw/turn"},
		{"traces endpoint and service name", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "/v1/traces", "botgw-eu", "botgw-eu/turn"},
	} {
		t.Run(c.name, func(t *testing.T) {
			col := newOTLPCollector(t)
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
			t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
			t.Setenv(c.envVar, col.URL+c.path)
			t.Setenv("OTEL_SERVICE_NAME", c.service)
			tracer, stop, err := startTracing(context.Background(), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			_, span := tracer.Start(context.Background(), "turn")
			span.End()
			stop() // flushes the batch
			if got := col.received(); len(got) != 1 || got[0] != c.want {
				t.Errorf("collector received spans %q, want [%q]", got, c.want)
			}
		})
	}
}
