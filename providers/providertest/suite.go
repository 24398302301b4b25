package providertest

import (
	"context"
	"errors"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/internal/wire"
)

// Harness is what a provider gives the conformance suite: the API it
// speaks and how to build it. Run builds a fresh fake and provider for
// every case, so cases never share state.
type Harness struct {
	// Wire is the vendor's API the provider calls.
	Wire Wire
	// Model is the model the suite configures; ID is the provider's ID
	// for it (Provider.ID, ProviderError.Provider, Reply.Provider).
	Model, ID string
	// New builds the provider from c.
	New func(c Config) (botgw.Provider, error)
	// DefaultMaxTokens is the reply cap the provider sends when
	// Config.MaxTokens is 0; 0 when it sends none.
	DefaultMaxTokens int
	// Env is the vendor SDK's environment variables, each with a value
	// that would send the call elsewhere if the provider read it.
	Env map[string]string
	// Transcribe builds the vendor's transcriber; nil when it has none.
	Transcribe func(c Config) (Transcriber, error)
}

// Config is the providers' configuration (openai.Config and
// anthropic.Config are this type).
type Config = wire.Config

// Transcriber turns a recording into text.
type Transcriber interface {
	Transcribe(ctx context.Context, audio []byte, name string) (string, error)
}

// Key is the API key the suite configures.
const Key = "sk-test-4f1c"

// env is one case's provider on a fresh fake of its API.
type env struct {
	h    Harness
	cfg  Config
	sent func() []Sent
}

// start starts the fake answering with respond, and configures the
// provider for it; edit changes the configuration before New.
func start(t *testing.T, h Harness, respond Respond) *env {
	base, sent := h.Wire.Start(t, respond)
	return &env{h: h, sent: sent, cfg: Config{BaseURL: base, APIKey: Key, Model: h.Model}}
}

// provider builds the provider on e's configuration.
func (e *env) provider(t *testing.T) botgw.Provider {
	t.Helper()
	p, err := e.h.New(e.cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", e.cfg, err)
	}
	return p
}

// complete sends req through a provider on e's configuration.
func (e *env) complete(t *testing.T, req botgw.Request) (botgw.Reply, error) {
	t.Helper()
	return e.provider(t).Complete(t.Context(), req)
}

// only is the one request the fake received.
func (e *env) only(t *testing.T) Sent {
	t.Helper()
	s := e.sent()
	if len(s) != 1 {
		t.Fatalf("the API received %d requests, want 1", len(s))
	}
	return s[0]
}

// providerError is err as a *botgw.ProviderError of the harness's
// provider.
func (e *env) providerError(t *testing.T, err error) *botgw.ProviderError {
	t.Helper()
	pe, ok := errors.AsType[*botgw.ProviderError](err)
	if !ok {
		t.Fatalf("err = %v (%T), want a *botgw.ProviderError", err, err)
	}
	if pe.Provider != e.h.ID {
		t.Errorf("ProviderError.Provider = %q, want %q", pe.Provider, e.h.ID)
	}
	return pe
}

// Run runs the conformance suite against the provider h describes. Each
// case is a subtest named after it (reply/..., tools/..., errors/...), so
// a broken rule fails the provider's run naming the case.
func Run(t *testing.T, h Harness) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, h) })
	}
}

type suiteCase struct {
	name string
	run  func(t *testing.T, h Harness)
}

// cases is the suite, in the order it runs.
var cases = concat(replyCases, toolCases, errorCases, timeCases, configCases, transcribeCases)

func concat(lists ...[]suiteCase) []suiteCase {
	var out []suiteCase
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func user(text string) botgw.Message { return botgw.Message{Role: botgw.RoleUser, Text: text} }

func hi() botgw.Request { return botgw.Request{Messages: []botgw.Message{user("hi")}} }
