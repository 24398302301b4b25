package fallback_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/providers/fallback"
	"github.com/botgw/botgw/providers/openai"
	"github.com/botgw/botgw/providers/providertest"
)

// failingOpenAI is an OpenAI provider whose server answers 500 to every
// call; calls counts them.
func failingOpenAI(t *testing.T, calls *atomic.Int32) *openai.Provider {
	t.Helper()
	srv := providertest.NewOpenAI(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		providertest.OpenAIStatus(http.StatusInternalServerError).Write(w)
	})
	p, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "gpt-4o-mini", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var hi = botgw.Request{Messages: []botgw.Message{{Role: botgw.RoleUser, Text: "hi"}}}

func TestSecondaryAnswersWhenPrimaryFails(t *testing.T) {
	var calls atomic.Int32
	var logs bytes.Buffer
	secondary := fake.New(fake.Step{Text: "from the fallback"})
	p := fallback.New(failingOpenAI(t, &calls), secondary, slog.New(slog.NewTextHandler(&logs, nil)))

	reply, err := p.Complete(t.Context(), hi)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Text != "from the fallback" || reply.Provider != fake.ID {
		t.Errorf("reply = %+v, want the fallback's text from %s", reply, fake.ID)
	}
	if p.ID() != "openai/gpt-4o-mini" {
		t.Errorf("ID = %q, want the primary's", p.ID())
	}
	if calls.Load() != 1 || len(secondary.Requests()) != 1 || secondary.Requests()[0].Messages[0].Text != "hi" {
		t.Errorf("primary saw %d calls, secondary %+v; want one each with the same request", calls.Load(), secondary.Requests())
	}
	if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "err=") {
		t.Errorf("log = %q, want a warning with the error", l)
	}
}

func TestPrimaryAnswers(t *testing.T) {
	secondary := fake.New()
	p := fallback.New(fake.New(fake.Step{Text: "primary"}), secondary, nil)
	reply, err := p.Complete(t.Context(), hi)
	if err != nil || reply.Text != "primary" {
		t.Fatalf("reply = %+v, %v; want the primary's", reply, err)
	}
	if n := len(secondary.Requests()); n != 0 {
		t.Errorf("secondary saw %d requests, want 0", n)
	}
}

func TestBothFailReturnsTheSecondaryError(t *testing.T) {
	var calls atomic.Int32
	overloaded := &botgw.ProviderError{Provider: fake.ID, Status: 529, Code: "overloaded_error", Err: errors.New("Overloaded")}
	p := fallback.New(failingOpenAI(t, &calls), fake.New(fake.Step{Err: overloaded}), nil)

	_, err := p.Complete(t.Context(), hi)
	pe, ok := errors.AsType[*botgw.ProviderError](err)
	if !ok || pe.Status != 529 || !pe.Retryable() {
		t.Fatalf("err = %v, want the secondary's retryable 529", err)
	}
	if !strings.Contains(err.Error(), "openai/gpt-4o-mini") {
		t.Errorf("err = %q, want the primary's failure named too", err)
	}
}

func TestNoFailoverOnCancel(t *testing.T) {
	primary := fake.New()
	release := primary.Block()
	defer release()
	secondary := fake.New(fake.Step{Text: "should not run"})
	p := fallback.New(primary, secondary, nil)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := p.Complete(ctx, hi)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := len(secondary.Requests()); n != 0 {
		t.Errorf("secondary saw %d requests after cancellation, want 0", n)
	}
}
