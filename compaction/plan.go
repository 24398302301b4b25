package compaction

import (
	"strings"

	"github.com/botgw/botgw"
)

// plan decides, oldest first, which parts of a history to drop. Loose
// messages and tool summaries always come before the kept exchanges, so two
// cursors that only move forward find the next candidates.
type plan struct {
	parts []part
	c     Counter // nil: costs are not tracked (count-based strategies)

	total     int // cost of everything kept
	loose     int // cost of the kept loose messages and tool summaries
	looseN    int // and their number
	exchanges int // exchanges kept
	newest    int // index of the newest exchange in parts; -1 when none
	// open is the number of exchanges at the end that no assistant message
	// answers yet: the input the turn answers. keepFrom is the index in
	// parts of the first of them (of the newest exchange when none is
	// open); no strategy drops an exchange from there on.
	open, keepFrom int

	nextLoose, nextExchange int
	changed                 bool
}

func newPlan(h []botgw.Message, c Counter) *plan {
	parts, stale := split(h)
	p := &plan{parts: parts, c: c, newest: -1, changed: stale}
	for i := range parts {
		pt := &parts[i]
		pt.cost = p.costAll(pt.msgs)
		p.total += pt.cost
		switch pt.kind {
		case loose:
			p.loose += pt.cost
			p.looseN++
		case exchange:
			pt.pinCost = p.costAll(pt.pins)
			p.exchanges++
			p.newest = i
		}
	}
	p.markOpen()
	return p
}

// markOpen sets open and keepFrom: the exchanges after the last one an
// assistant message answers are the input being answered.
func (p *plan) markOpen() {
	p.keepFrom = p.newest
	for i := len(p.parts) - 1; i >= 0; i-- {
		pt := &p.parts[i]
		if pt.kind != exchange {
			continue
		}
		if answered(pt.msgs) {
			return
		}
		p.open++
		p.keepFrom = i
	}
}

// completed is the number of kept exchanges an assistant message answered.
func (p *plan) completed() int { return p.exchanges - p.open }

func answered(ex []botgw.Message) bool {
	for _, m := range ex {
		if m.Role == botgw.RoleAssistant {
			return true
		}
	}
	return false
}

func (p *plan) costAll(ms []botgw.Message) int {
	if p.c == nil {
		return 0
	}
	return CountMessages(p.c, ms)
}

// trim drops the oldest parts while over reports true: first loose messages
// while tooLoose reports true, then exchanges before keepFrom, then the
// remaining loose messages. It stops when nothing is left to drop.
// Exchanges from keepFrom on are never dropped.
func (p *plan) trim(over, tooLoose func() bool) {
	for over() {
		if tooLoose() && p.dropLoose() {
			continue
		}
		if p.dropExchange() || p.dropLoose() {
			continue
		}
		return
	}
}

// dropLoose drops the oldest loose message or tool summary.
func (p *plan) dropLoose() bool {
	for ; p.nextLoose < len(p.parts); p.nextLoose++ {
		pt := &p.parts[p.nextLoose]
		switch {
		case pt.kind == exchange && pt.state == kept:
			return false
		case pt.kind == loose && pt.state == kept:
			p.forgetLoose(pt, pt.cost)
			return true
		case pt.kind == exchange && pt.state == summarised:
			p.forgetLoose(pt, pt.residueCost)
			return true
		}
	}
	return false
}

func (p *plan) forgetLoose(pt *part, cost int) {
	pt.state = gone
	p.total -= cost
	p.loose -= cost
	p.looseN--
	p.nextLoose++
	p.changed = true
}

// dropExchange replaces the oldest exchange before keepFrom by its tool
// summary and pinned events.
func (p *plan) dropExchange() bool {
	for ; p.nextExchange < p.keepFrom; p.nextExchange++ {
		if pt := &p.parts[p.nextExchange]; pt.kind == exchange {
			p.summarise(pt)
			p.nextExchange++
			return true
		}
	}
	return false
}

func (p *plan) summarise(pt *part) {
	p.total += pt.pinCost - pt.cost
	p.exchanges--
	p.changed = true
	if !usedTools(pt.msgs) {
		pt.state = gone
		return
	}
	pt.state = summarised
	if p.c != nil {
		pt.residueCost = p.costAll([]botgw.Message{pt.summary()})
	}
	p.total += pt.residueCost
	p.loose += pt.residueCost
	p.looseN++
}

// summary is the tool summary of a summarised exchange, made once when first
// needed.
func (pt *part) summary() botgw.Message {
	if pt.residue == nil {
		pt.residue = &botgw.Message{Role: botgw.RoleSummary, Text: toolSummary(pt.msgs), At: pt.msgs[0].At}
	}
	return *pt.residue
}

// output assembles what the plan kept, in order; h itself when nothing
// changed.
func (p *plan) output(h []botgw.Message) []botgw.Message {
	if !p.changed {
		return h
	}
	b := builder{c: p.c, out: make([]botgw.Message, 0, p.kept())}
	for i := range p.parts {
		pt := &p.parts[i]
		switch {
		case pt.state == kept:
			b.add(pt.msgs...)
		case pt.state == summarised:
			b.lines = append(b.lines, pt)
			b.add(pt.pins...)
		default:
			b.add(pt.pins...)
		}
	}
	b.flush()
	return b.out
}

// kept is how many messages output writes at most: summaries merged into
// one are counted apart.
func (p *plan) kept() int {
	n := 0
	for i := range p.parts {
		pt := &p.parts[i]
		switch pt.state {
		case kept:
			n += len(pt.msgs)
		case summarised:
			n += 1 + len(pt.pins)
		default:
			n += len(pt.pins)
		}
	}
	return n
}

// builder appends messages, merging consecutive tool summaries into one.
type builder struct {
	c     Counter
	out   []botgw.Message
	lines []*part // summarised exchanges whose summaries are not yet out
}

func (b *builder) add(ms ...botgw.Message) {
	if len(ms) == 0 {
		return
	}
	b.flush()
	b.out = append(b.out, ms...)
}

// flush writes the pending tool summaries as one message.
func (b *builder) flush() {
	switch len(b.lines) {
	case 0:
		return
	case 1:
		b.out = append(b.out, b.lines[0].summary())
	default:
		b.out = append(b.out, b.merge()...)
	}
	b.lines = b.lines[:0]
}

// merge joins the pending tool summaries into one message, unless that would
// cost more than the separate messages a budget was computed on.
func (b *builder) merge() []botgw.Message {
	merged := b.lines[0].summary()
	texts := make([]string, len(b.lines))
	cost := 0
	for i, pt := range b.lines {
		texts[i] = pt.summary().Text
		cost += pt.residueCost
	}
	merged.Text = strings.Join(texts, "\n")
	if b.c == nil || countMessage(b.c, merged) <= cost {
		return []botgw.Message{merged}
	}
	separate := make([]botgw.Message, len(b.lines))
	for i, pt := range b.lines {
		separate[i] = pt.summary()
	}
	return separate
}
