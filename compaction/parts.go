package compaction

import "github.com/botgw/botgw"

// kind says how compaction may treat a part of a history.
type kind uint8

const (
	// loose is a message outside every exchange (a summary, an event that
	// came before the first user message): dropped whole, oldest first.
	loose kind = iota
	// pinned is the latest event of its key: always kept where it was.
	pinned
	// exchange is a user message and everything that answered it.
	exchange
)

// state is what a plan decided about a part.
type state uint8

const (
	kept state = iota
	// summarised: an exchange replaced by its tool summary and pinned events.
	summarised
	// gone: nothing is left of the part but its pinned events.
	gone
)

// part is one unit of a history: a loose or pinned message, or an exchange.
type part struct {
	kind  kind
	state state
	msgs  []botgw.Message // in order; an exchange's include its pinned events
	pins  []botgw.Message // the pinned events among an exchange's msgs
	cost  int             // of msgs
	// pinCost is the cost of pins; residue is an exchange's tool summary
	// (see summary) and residueCost its cost. residue is a pointer: most
	// parts never have one, and a history has a part per exchange.
	pinCost     int
	residue     *botgw.Message
	residueCost int
}

// split cuts h into parts, in order, leaving out events superseded by a later
// event of the same key; stale reports whether there were any.
func split(h []botgw.Message) (parts []part, stale bool) {
	latest := latestEvents(h)
	first := nextUser(h, 0)
	parts = make([]part, 0, first+(len(h)-first)/2)
	for i, m := range h[:first] {
		switch {
		case isStale(m, i, latest):
			stale = true
		case isPinned(m, i, latest):
			parts = append(parts, part{kind: pinned, msgs: h[i : i+1 : i+1]})
		default:
			parts = append(parts, part{kind: loose, msgs: h[i : i+1 : i+1]})
		}
	}
	for start := first; start < len(h); {
		end := nextUser(h, start+1)
		ex, s := newExchange(h, start, end, latest)
		parts = append(parts, ex)
		stale = stale || s
		start = end
	}
	return parts, stale
}

// newExchange makes the exchange part of h[start:end].
func newExchange(h []botgw.Message, start, end int, latest map[string]int) (ex part, stale bool) {
	ex = part{kind: exchange, msgs: h[start:end:end]}
	for i := start; i < end; i++ {
		if isPinned(h[i], i, latest) {
			ex.pins = append(ex.pins, h[i])
		}
		stale = stale || isStale(h[i], i, latest)
	}
	if stale {
		ex.msgs = make([]botgw.Message, 0, end-start)
		for i := start; i < end; i++ {
			if !isStale(h[i], i, latest) {
				ex.msgs = append(ex.msgs, h[i])
			}
		}
	}
	return ex, stale
}

// latestEvents maps each event key to the index of its latest event; nil
// when h has no keyed event.
func latestEvents(h []botgw.Message) map[string]int {
	var latest map[string]int
	for i, m := range h {
		if m.Role == botgw.RoleEvent && m.EventKey != "" {
			if latest == nil {
				latest = make(map[string]int)
			}
			latest[m.EventKey] = i
		}
	}
	return latest
}

func isPinned(m botgw.Message, i int, latest map[string]int) bool {
	return m.Role == botgw.RoleEvent && m.EventKey != "" && latest[m.EventKey] == i
}

func isStale(m botgw.Message, i int, latest map[string]int) bool {
	return m.Role == botgw.RoleEvent && m.EventKey != "" && latest[m.EventKey] != i
}

// nextUser is the index of the first user message at or after from, or len(h).
func nextUser(h []botgw.Message, from int) int {
	for i := from; i < len(h); i++ {
		if h[i].Role == botgw.RoleUser {
			return i
		}
	}
	return len(h)
}
