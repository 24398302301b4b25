package botgw

import (
	"context"
	"encoding/json"
)

// ToolSpec declares a tool the model may call.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // JSON Schema object
}

// Request is one provider call: the system prompt (never stored), the
// compacted history ending with the new input, and the tools on offer.
type Request struct {
	System   string
	Messages []Message
	Tools    []ToolSpec
}

// Usage is the provider-reported token count of one call.
type Usage struct {
	InputTokens  int `json:"in"`
	OutputTokens int `json:"out"`
}

// Reply is a provider's answer: text, or tool calls to run first.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	Usage     Usage
	// Provider is the ID of the provider that answered (a fallback chain
	// reports the member that did).
	Provider string
}

// Provider is an LLM backend.
type Provider interface {
	// ID names the backend and model ("openai/gpt-4o-mini"). A chat's state
	// is locked to it.
	ID() string
	// Complete makes one call. It blocks until the model answered or ctx
	// ended; errors from the vendor are *ProviderError. Safe for concurrent use.
	Complete(ctx context.Context, req Request) (Reply, error)
}

// Compactor shrinks a history before it is sent. It never mutates h.
// hint compares the provider's count of the chat's previous request with
// the gateway's estimate (zero when there is none), so a token budget can
// follow the provider's tokenizer.
type Compactor interface {
	Compact(ctx context.Context, h []Message, hint UsageHint) ([]Message, error)
}

// CompactorFunc adapts a function to Compactor.
type CompactorFunc func(context.Context, []Message, UsageHint) ([]Message, error)

func (f CompactorFunc) Compact(ctx context.Context, h []Message, hint UsageHint) ([]Message, error) {
	return f(ctx, h, hint)
}

// UsageHint compares the provider's reported input tokens for a chat's
// previous request with the gateway's own estimate of that request, so a
// Compactor's token budget follows the provider's real tokenizer (an offline
// estimate can be far off for Claude or Llama).
type UsageHint struct {
	Estimated int `json:"estimated"`
	Reported  int `json:"reported"`
}

// Usable reports whether h holds both counts.
func (h UsageHint) Usable() bool { return h.Estimated > 0 && h.Reported > 0 }
