package markup

import (
	"strings"
	"unicode"
)

// packer gathers rendered blocks into messages within a dialect's limit.
type packer struct {
	d    Dialect
	msgs []string
	cur  string
	n    int // d.Len(cur); lengths add up because no block is cut inside
}

// pack lays the leaves out as messages: as many whole leaves as fit in
// each, and a leaf longer than a message cut between its units.
func (d Dialect) pack(leaves []*leaf) []string {
	p := &packer{d: d}
	for _, l := range leaves {
		whole := d.render(l, l.units, true)
		if n := d.Len(whole); d.Limit <= 0 || n <= d.Limit {
			p.add(l.f.sep, whole, n)
			continue
		}
		for i, piece := range d.cut(l) {
			sep := l.f.sep
			if i > 0 {
				sep = "\n"
			}
			p.add(sep, piece, d.Len(piece))
		}
	}
	p.flush()
	return p.msgs
}

func (d Dialect) fits(s string) bool { return d.Limit <= 0 || d.Len(s) <= d.Limit }

// add appends s, of length n, to the current message after sep, or starts
// a new one.
func (p *packer) add(sep, s string, n int) {
	if strings.TrimSpace(s) == "" {
		return
	}
	if p.cur != "" {
		if m := p.n + p.d.Len(sep) + n; p.d.Limit <= 0 || m <= p.d.Limit {
			p.cur, p.n = p.cur+sep+s, m
			return
		}
		p.flush()
	}
	p.cur, p.n = s, n
}

func (p *packer) flush() {
	if p.cur != "" {
		p.msgs = append(p.msgs, p.cur)
	}
	p.cur, p.n = "", 0
}

// cut renders a leaf too long for one message as several, each holding as
// many units as fit. A unit longer than a message is cut itself, at a space
// or punctuation if one is near, never inside a character.
func (d Dialect) cut(l *leaf) []string {
	units := append([]unit(nil), l.units...)
	var out []string
	for first := true; len(units) > 0; first = false {
		j := d.fit(l, units, first)
		if j == 0 {
			units = append(d.splitUnit(l, units[0], first), units[1:]...)
			j = 1
		}
		out = append(out, d.render(l, units[:j], first))
		units = units[j:]
	}
	return out
}

// fit is how many units, from the first, fit in one message.
func (d Dialect) fit(l *leaf, units []unit, first bool) int {
	lo, hi := 0, len(units)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if d.fits(d.render(l, units[:mid], first)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// splitUnit cuts u in two so that the first part fills a message.
func (d Dialect) splitUnit(l *leaf, u unit, first bool) []unit {
	r := []rune(u.raw)
	part := func(s []rune) unit {
		if l.code {
			return unit{out: string(s), raw: string(s)}
		}
		return unit{out: d.st.escape(string(s)), raw: string(s)}
	}
	lo, hi := 1, len(r)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if d.fits(d.render(l, []unit{part(r[:mid])}, first)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	k := cutNear(r, lo)
	if k <= 0 || k >= len(r) {
		return []unit{u}
	}
	return []unit{part(r[:k]), part(r[k:])}
}

// cutNear picks where to cut r at or before k: after a space or a
// punctuation mark in the last fifth, else at the last place that does not
// split a character (an emoji sequence, a flag, a letter and its accents).
func cutNear(r []rune, k int) int {
	for i := k; i > k*4/5; i-- {
		if safeCut(r, i) && (unicode.IsSpace(r[i-1]) || unicode.IsPunct(r[i-1])) {
			return i
		}
	}
	for i := k; i > 0; i-- {
		if safeCut(r, i) {
			return i
		}
	}
	return k
}

// safeCut reports whether r may be cut before r[i] without splitting a
// user-perceived character.
func safeCut(r []rune, i int) bool {
	if i <= 0 || i >= len(r) {
		return true
	}
	a, b := r[i-1], r[i]
	switch {
	case a == '\u200d' || b == '\u200d', a == '\r' && b == '\n':
		return false
	case unicode.In(b, unicode.Mn, unicode.Me, unicode.Mc, unicode.Variation_Selector):
		return false
	case b >= 0x1F3FB && b <= 0x1F3FF, b >= 0xE0020 && b <= 0xE007F:
		return false // skin tone, emoji tag
	case isRegional(a) && isRegional(b):
		n := 0
		for j := i - 1; j >= 0 && isRegional(r[j]); j-- {
			n++
		}
		return n%2 == 0 // flags are pairs
	}
	return true
}

func isRegional(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

// CutsCharacter reports whether a message ending with before and the next
// one starting with after split one user-perceived character in two.
func CutsCharacter(before, after string) bool {
	r := []rune(before)
	n := len(r)
	return n > 0 && after != "" && !safeCut(append(r, []rune(after)...), n)
}
