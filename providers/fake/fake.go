// Package fake is a deterministic botgw.Provider for tests and the demo.
//
// It plays scripted steps in order; when they run out (or none were given)
// it answers with a demo reply that echoes the conversation, so a user of
// the zero-config gateway can see memory working without any LLM. It records
// every request, can be blocked to simulate a stuck backend, and can add a
// fixed latency for benchmarks.
package fake

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/botgw/botgw"
)

// ID is the provider ID of every fake Provider.
const ID = "fake/demo"

var _ botgw.Provider = (*Provider)(nil)

// Step is one scripted answer. Err, when set, is returned instead of a reply.
// Delay is added latency before the step answers.
type Step struct {
	Text      string
	ToolCalls []botgw.ToolCall
	Err       error
	Delay     time.Duration
}

// Provider is a scripted, concurrency-safe botgw.Provider.
type Provider struct {
	mu       sync.Mutex
	steps    []Step
	requests []botgw.Request
	delay    time.Duration
	gate     chan struct{} // non-nil while blocked; closed on the last release
	holds    int           // Block calls not yet released
}

// New returns a Provider that answers with steps in order, then with the
// demo reply.
func New(steps ...Step) *Provider {
	return &Provider{steps: slices.Clone(steps)}
}

// ID returns "fake/demo".
func (p *Provider) ID() string { return ID }

// Complete records req, waits while the provider is blocked, then answers
// with the next scripted step or the demo reply. It returns a
// *botgw.ProviderError with Status 0 when ctx ends first; a step that was
// not yet taken stays for the next call.
func (p *Provider) Complete(ctx context.Context, req botgw.Request) (botgw.Reply, error) {
	gate := p.record(req)
	if err := wait(ctx, gate, 0); err != nil {
		return botgw.Reply{}, err
	}
	step, scripted := p.next()
	if err := wait(ctx, nil, p.latency()+step.Delay); err != nil {
		return botgw.Reply{}, err
	}
	if step.Err != nil {
		return botgw.Reply{}, step.Err
	}
	if !scripted {
		step.Text = demoReply(req.Messages)
	}
	return botgw.Reply{
		Text:      step.Text,
		ToolCalls: slices.Clone(step.ToolCalls),
		Usage:     usage(req, step.Text),
		Provider:  ID,
	}, nil
}

// Requests returns deep copies of every request received, in order.
func (p *Provider) Requests() []botgw.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]botgw.Request, len(p.requests))
	for i, r := range p.requests {
		out[i] = copyRequest(r)
	}
	return out
}

// Block makes Complete calls wait, from the start of the call, until
// release is called or their ctx ends. Calls already past that point are not
// held. Blocks nest: calls wait until every release was called. release is
// idempotent.
func (p *Provider) Block() (release func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holds == 0 {
		p.gate = make(chan struct{})
	}
	p.holds++
	var once sync.Once
	return func() { once.Do(p.unblock) }
}

func (p *Provider) unblock() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holds--
	if p.holds == 0 {
		close(p.gate)
		p.gate = nil
	}
}

// SetDelay sets a fixed latency added to every call.
func (p *Provider) SetDelay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

// record stores a copy of req and returns the gate the call must wait for.
func (p *Provider) record(req botgw.Request) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, copyRequest(req))
	return p.gate
}

// next takes the next scripted step; scripted is false once they ran out.
func (p *Provider) next() (step Step, scripted bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.steps) == 0 {
		return Step{}, false
	}
	step = p.steps[0]
	p.steps = p.steps[1:]
	return step, true
}

func (p *Provider) latency() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delay
}

// wait blocks until gate is closed (a nil gate is open) and d has passed,
// or ctx ends.
func wait(ctx context.Context, gate <-chan struct{}, d time.Duration) error {
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return &botgw.ProviderError{Provider: ID, Err: ctx.Err()}
		}
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return &botgw.ProviderError{Provider: ID, Err: ctx.Err()}
	}
}

func copyRequest(r botgw.Request) botgw.Request {
	r.Messages = slices.Clone(r.Messages)
	for i := range r.Messages {
		m := &r.Messages[i]
		m.ToolCalls = slices.Clone(m.ToolCalls)
		m.InboundIDs = slices.Clone(m.InboundIDs)
	}
	r.Tools = slices.Clone(r.Tools)
	for i := range r.Tools {
		r.Tools[i].Parameters = slices.Clone(r.Tools[i].Parameters)
	}
	return r
}
