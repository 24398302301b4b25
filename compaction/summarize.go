package compaction

import (
	"context"
	"fmt"
	"strings"

	"github.com/botgw/botgw"
)

// summaryPrompt is the system prompt of a summary request.
const summaryPrompt = `You condense the early part of a chat between a user and an assistant so ` +
	`the assistant can continue the conversation without it. Write a concise, factual summary ` +
	`in plain sentences: what the user said, asked and decided; what the assistant answered; ` +
	`names, places, numbers and tool results that may matter later; open questions. ` +
	`No preamble, no advice, at most 150 words.`

// summaryLead starts the text of an LLM summary in the history.
const summaryLead = "Summary of the earlier conversation: "

type summarizer struct {
	p          botgw.Provider
	maxTokens  int
	keepRecent int
	c          Counter
	fallback   botgw.Compactor
}

// Summarize, when a history is over maxTokens by c, has p summarise its
// oldest half of completed exchanges (with the loose messages before them,
// never one of the last keepRecent completed exchanges nor the input being
// answered, which does not count against keepRecent) into one RoleSummary
// message; pinned events stay. One call per compaction: a history still over
// budget is summarised again next time, never reset.
//
// When nothing is old enough to summarise, or the summary fails, is empty or
// is not shorter in tokens than what it replaces, fallback compacts the
// history instead (nil: the history is returned as it is).
func Summarize(p botgw.Provider, maxTokens, keepRecent int, c Counter, fallback botgw.Compactor) botgw.Compactor {
	if c == nil {
		c = Heuristic
	}
	if fallback == nil {
		fallback = None()
	}
	return &summarizer{p: p, maxTokens: maxTokens, keepRecent: max(keepRecent, 1), c: c, fallback: fallback}
}

func (s *summarizer) Compact(ctx context.Context, h []botgw.Message, hint botgw.UsageHint) ([]botgw.Message, error) {
	p := newPlan(h, s.c)
	if p.total <= budget(hint, s.maxTokens) {
		return p.output(h), nil
	}
	cut := s.cut(p)
	if cut < 0 {
		return s.fallback.Compact(ctx, h, hint)
	}
	old, recent := p.parts[:cut], p.parts[cut:]
	summary, ok := s.summarise(ctx, old)
	if !ok {
		return s.fallback.Compact(ctx, h, hint)
	}
	out := make([]botgw.Message, 0, len(h))
	out = append(out, summary)
	for _, pt := range old {
		if pt.kind == pinned {
			out = append(out, pt.msgs...)
		}
		out = append(out, pt.pins...)
	}
	for _, pt := range recent {
		out = append(out, pt.msgs...)
	}
	return out, nil
}

// cut is the index in p.parts of the first exchange to keep, or -1 when no
// exchange may be summarised.
func (s *summarizer) cut(p *plan) int {
	done := p.completed()
	drop := min((done+1)/2, done-s.keepRecent)
	if drop <= 0 {
		return -1
	}
	for i, pt := range p.parts {
		if pt.kind != exchange {
			continue
		}
		if drop == 0 {
			return i
		}
		drop--
	}
	return -1
}

// summarise asks the provider for a summary of old; ok is false when there is
// no usable one: the call failed, or the summary is empty or not shorter in
// tokens than the messages it replaces (old without its pinned events).
func (s *summarizer) summarise(ctx context.Context, old []part) (m botgw.Message, ok bool) {
	replaced := 0
	for _, pt := range old {
		if pt.kind != pinned {
			replaced += pt.cost - pt.pinCost
		}
	}
	text, last := transcript(old)
	reply, err := s.p.Complete(ctx, botgw.Request{
		System:   summaryPrompt,
		Messages: []botgw.Message{{Role: botgw.RoleUser, Text: text}},
	})
	if err != nil || strings.TrimSpace(reply.Text) == "" {
		return botgw.Message{}, false
	}
	m = botgw.Message{Role: botgw.RoleSummary, Text: summaryLead + strings.TrimSpace(reply.Text), At: last.At}
	return m, countMessage(s.c, m) < replaced
}

// transcript renders the messages of parts as plain text for the summariser,
// and returns the last of them. A transcript rather than the messages
// themselves: every provider accepts it, whatever its rules on role order
// and on tool calls without tool definitions.
func transcript(parts []part) (text string, last botgw.Message) {
	var b strings.Builder
	b.WriteString("Summarise this early part of our conversation:\n\n")
	for _, pt := range parts {
		for _, m := range pt.msgs {
			writeMessage(&b, m)
			last = m
		}
	}
	return b.String(), last
}

func writeMessage(b *strings.Builder, m botgw.Message) {
	if m.Text != "" {
		fmt.Fprintf(b, "%s: %s\n", m.Role, m.Text)
	}
	for _, tc := range m.ToolCalls {
		fmt.Fprintf(b, "%s called %s(%s) → %s\n", m.Role, tc.Name, tc.Arguments, outcome(tc))
	}
}
