package convo

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/convo/spans"
	"github.com/botgw/botgw/convo/tools"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
)

// tracedEngine runs an engine with a tool and an in-memory span recorder.
func tracedEngine(t *testing.T, prov botgw.Provider, tt Tools) (*Engine, *channeltest.Recorder, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ch := channeltest.NewRecorder("test")
	eng, err := New(Config{SystemPrompt: "You are a test assistant."}, Deps{
		Store: openStore(t, false, fastStore), Provider: prov, Tools: tt,
		Channels: map[string]botgw.Channel{"test": ch}, Tracer: tp.Tracer("convo-test")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = eng.Close(ctx)
	})
	return eng, ch, rec
}

func TestTurnIsOneTraceWithoutConversationText(t *testing.T) {
	game := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"score":"secret-tool-result"}`)
	}))
	t.Cleanup(game.Close)
	runner, err := tools.NewHTTP([]tools.Config{{Name: "get_score", URL: game.URL}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prov := fake.New(
		fake.Step{ToolCalls: []botgw.ToolCall{{ID: "c1", Name: "get_score", Arguments: `{"team":"secret-args"}`}}},
		fake.Step{Text: "secret-reply"})
	eng, ch, rec := tracedEngine(t, prov, runner)
	in := botgw.Inbound{Chat: testChat, ID: "m1", UserID: "u1", Text: "secret-question"}
	if err := eng.Handle(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	ch.Wait(t, 1, 5*time.Second)
	wait.Eventually(t, "the condition", func() bool { return len(spansNamed(rec.Ended(), spans.Turn)) == 1 })

	ended := rec.Ended()
	turn := spansNamed(ended, spans.Turn)[0]
	if turn.Parent().IsValid() {
		t.Errorf("turn span has a parent; want it to be the trace's root")
	}
	wantAttrs(t, turn, map[string]string{"botgw.channel": "test", "botgw.outcome": "ok",
		"botgw.tool_calls": "1", "gen_ai.usage.input_tokens": "", "gen_ai.usage.output_tokens": ""})
	for name, want := range map[string]int{spans.Provider: 2, spans.Tool: 1, spans.Commit: 1, spans.Delivery: 1} {
		got := spansNamed(ended, name)
		if len(got) != want {
			t.Errorf("%d %q spans, want %d", len(got), name, want)
		}
		for _, s := range got {
			if s.Parent().SpanID() != turn.SpanContext().SpanID() || s.SpanContext().TraceID() != turn.SpanContext().TraceID() {
				t.Errorf("%q span is not a child of the turn span", name)
			}
		}
	}
	wantAttrs(t, spansNamed(ended, spans.Tool)[0], map[string]string{"gen_ai.tool.name": "get_score"})
	for _, s := range ended {
		for _, a := range s.Attributes() {
			if v := a.Value.Emit(); strings.Contains(v, "secret") || strings.Contains(v, testChat.ID) {
				t.Errorf("span %q attribute %s = %q carries conversation text or the chat key", s.Name(), a.Key, v)
			}
		}
	}
}

func TestProviderFailureMarksTheTurnSpanFailed(t *testing.T) {
	prov := fake.New(fake.Step{Err: &botgw.ProviderError{Provider: fake.ID, Status: 503}})
	eng, ch, rec := tracedEngine(t, prov, nil)
	if err := eng.Handle(context.Background(), botgw.Inbound{Chat: testChat, ID: "m1", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	ch.Wait(t, 1, 5*time.Second)
	wait.Eventually(t, "the condition", func() bool { return len(spansNamed(rec.Ended(), spans.Turn)) == 1 })
	ended := rec.Ended()
	turn := spansNamed(ended, spans.Turn)[0]
	wantAttrs(t, turn, map[string]string{"botgw.outcome": "provider_error", "http.response.status_code": "503"})
	if turn.Status().Code.String() != "Error" {
		t.Errorf("turn span status = %v, want Error", turn.Status())
	}
	if p := spansNamed(ended, spans.Provider); len(p) != 1 || p[0].Status().Code.String() != "Error" {
		t.Errorf("want one failed provider span, got %d", len(p))
	}
}

func spansNamed(all []sdktrace.ReadOnlySpan, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range all {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// wantAttrs checks span's attributes; an empty want only requires the key.
func wantAttrs(t *testing.T, span sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, a := range span.Attributes() {
		got[string(a.Key)] = a.Value.Emit()
	}
	for k, v := range want {
		g, ok := got[k]
		if !ok || (v != "" && g != v) {
			t.Errorf("span %q attribute %s = %q (present: %v), want %q", span.Name(), k, g, ok, v)
		}
	}
}
