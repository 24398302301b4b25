package convo

import (
	"context"
	"fmt"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/choices"
	"github.com/botgw/botgw/convo/spans"
)

// askResult is what the tool loop produced.
type askResult struct {
	firstInput int // input tokens the provider reported for the first call
	text       string
	offer      botgw.Offer     // what the model's offer_choices asked the reply to offer
	added      []botgw.Message // assistant messages, tool records included
	usage      botgw.Usage
	toolCalls  int
	provider   string
	err        error
}

// ask runs the tool loop: the model asks for calls, the gateway runs them
// and sends the results back, until the model answers in text. Past
// MaxToolCalls the model is asked once more without tools, so the user
// always gets an answer.
func (e *Engine) ask(ctx context.Context, k botgw.ChatKey, user string, history []botgw.Message) askResult {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.TurnTimeout)
	defer cancel()
	var res askResult
	var specs []botgw.ToolSpec
	if e.deps.Tools != nil {
		specs = e.deps.Tools.Specs()
	}
	if !e.cfg.NoOfferChoices {
		specs = append(specs[:len(specs):len(specs)], choices.Spec)
	}
	msgs := history
	for {
		offer := specs
		if res.toolCalls >= e.cfg.MaxToolCalls {
			offer = nil
		}
		reply, err := e.complete(ctx, k, botgw.Request{System: e.cfg.SystemPrompt, Messages: msgs, Tools: offer})
		if err != nil {
			res.err = fmt.Errorf("complete: %w", err)
			return res
		}
		res.provider = reply.Provider
		if res.firstInput == 0 {
			res.firstInput = reply.Usage.InputTokens
		}
		res.usage.InputTokens += reply.Usage.InputTokens
		res.usage.OutputTokens += reply.Usage.OutputTokens
		if len(reply.ToolCalls) == 0 || offer == nil {
			res.text = reply.Text
			if res.text == "" {
				res.text = "Sorry, I couldn't work that out. Could you ask in another way?"
			}
			res.added = append(res.added, botgw.Message{Role: botgw.RoleAssistant, Text: res.text, At: e.now()})
			return res
		}
		calls := e.runTools(ctx, k, user, reply.ToolCalls, e.cfg.MaxToolCalls-res.toolCalls)
		res.toolCalls += len(calls)
		if o, ok := choices.OfferOf(calls); ok {
			res.offer = o
		}
		m := botgw.Message{Role: botgw.RoleAssistant, Text: reply.Text, At: e.now(), ToolCalls: calls}
		res.added = append(res.added, m)
		msgs = append(msgs[:len(msgs):len(msgs)], m)
	}
}

// complete makes one model call in a "provider" span, so the provider's
// own instrumentation (if any) nests under it.
func (e *Engine) complete(ctx context.Context, k botgw.ChatKey, req botgw.Request) (botgw.Reply, error) {
	ctx, span := e.startSpan(ctx, spans.Provider, k.Channel)
	reply, err := e.deps.Provider.Complete(ctx, req)
	spans.EndProvider(span, reply, err)
	return reply, err
}

// runTools runs up to budget calls; the rest are answered with an error so
// every call id the model used has a result.
func (e *Engine) runTools(ctx context.Context, k botgw.ChatKey, user string, calls []botgw.ToolCall, budget int) []botgw.ToolCall {
	out := make([]botgw.ToolCall, len(calls))
	for i, c := range calls {
		if i >= budget {
			c.Error = "tool call limit reached for this turn; answer with what you have"
		} else if result, err := e.callTool(ctx, k, user, c); err != nil {
			c.Error = err.Error()
		} else {
			c.Result = result
		}
		out[i] = c
	}
	return out
}

// callTool runs one tool call in a "tool" span named by the tool (never
// its arguments or result).
func (e *Engine) callTool(ctx context.Context, k botgw.ChatKey, user string, c botgw.ToolCall) (string, error) {
	if c.Name == OfferChoicesTool && !e.cfg.NoOfferChoices {
		return choices.Run(c.Arguments)
	}
	if e.deps.Tools == nil {
		return "", fmt.Errorf("there is no tool named %q", c.Name)
	}
	ctx, span := e.startSpan(ctx, spans.Tool, k.Channel)
	if span.IsRecording() {
		span.SetAttributes(spans.AttrToolName.String(c.Name))
	}
	result, err := e.deps.Tools.Call(ctx, k, user, c)
	spans.End(span, err, "tool call failed")
	return result, err
}
