package markup

import (
	"strings"

	east "github.com/yuin/goldmark/extension/ast"
)

// table lays a GFM table out as lines of a monospace block: no chat
// platform draws tables, but every one shows code blocks in a fixed font.
func (r *renderer) table(t *east.Table) []unit {
	var rows [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, strings.TrimSpace(r.plain(c)))
		}
		rows = append(rows, cells)
	}
	widths := columnWidths(rows)
	var out []unit
	for i, cells := range rows {
		out = append(out, line(layoutRow(cells, widths, t.Alignments)))
		if i == 0 {
			sep := make([]string, len(widths))
			for j, w := range widths {
				sep[j] = strings.Repeat("-", w)
			}
			out = append(out, line(strings.Join(sep, "-+-")))
		}
	}
	return out
}

func line(s string) unit { return unit{out: s, raw: s} }

func columnWidths(rows [][]string) []int {
	var widths []int
	for _, cells := range rows {
		for j, c := range cells {
			if j >= len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], width(c))
		}
	}
	return widths
}

// layoutRow pads each cell to its column, right-aligned where the table
// says so, and joins them with " | ".
func layoutRow(cells []string, widths []int, align []east.Alignment) string {
	parts := make([]string, len(widths))
	for j, w := range widths {
		c := ""
		if j < len(cells) {
			c = cells[j]
		}
		pad := strings.Repeat(" ", w-width(c))
		if j < len(align) && align[j] == east.AlignRight {
			parts[j] = pad + c
		} else {
			parts[j] = c + pad
		}
	}
	return strings.TrimRight(strings.Join(parts, " | "), " ")
}

// width is how many columns s takes in a monospace font: East Asian wide
// characters and most emoji take two.
func width(s string) int {
	n := 0
	for _, r := range s {
		n++
		if wide(r) {
			n++
		}
	}
	return n
}

func wide(r rune) bool {
	for _, rg := range [][2]rune{{0x1100, 0x115F}, {0x2E80, 0xA4CF}, {0xAC00, 0xD7A3},
		{0xF900, 0xFAFF}, {0xFE30, 0xFE4F}, {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6},
		{0x1F300, 0x1F64F}, {0x1F900, 0x1F9FF}, {0x20000, 0x3FFFD}} {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}
