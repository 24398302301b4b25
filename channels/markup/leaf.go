package markup

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// leaf is one block of a reply: rendered whole when it fits in a message,
// cut between its units when it does not.
type leaf struct {
	f       frame
	code    bool   // units are lines of a code block (or a table)
	lang    string // the code block's language
	heading bool
	units   []unit
}

// unit is the smallest part of a leaf: a word or an inline span of a
// paragraph (a link, a code span, an emphasis), a line of a code block. A
// cut falls between units; raw is the unit's plain text, cut itself only
// when one unit is longer than a whole message.
type unit struct{ out, raw string }

// rule stands for a thematic break (---) on every platform.
const rule = "───"

// leafOf is the leaf for block n, or nil when n is a container.
func (r *renderer) leafOf(n ast.Node, f frame) *leaf {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return &leaf{f: f, units: r.inlineUnits(n, inl{})}
	case *ast.Heading:
		return &leaf{f: f, heading: true, units: r.inlineUnits(n, inl{bold: true})}
	case *ast.FencedCodeBlock:
		return &leaf{f: f, code: true, lang: string(n.Language(r.src)), units: r.lines(n)}
	case *ast.CodeBlock:
		return &leaf{f: f, code: true, units: r.lines(n)}
	case *ast.HTMLBlock:
		return &leaf{f: f, units: r.words(nil, r.htmlText(n))}
	case *ast.ThematicBreak:
		return &leaf{f: f, units: []unit{{out: rule, raw: rule}}}
	case *east.Table:
		return &leaf{f: f, code: true, units: r.table(n)}
	}
	return nil
}

// lines are the lines of a code block, as written.
func (r *renderer) lines(n ast.Node) []unit {
	var out []unit
	segs := n.Lines()
	for i := range segs.Len() {
		s := segs.At(i)
		line := strings.Repeat(" ", s.Padding) + string(s.Value(r.src))
		line = strings.TrimSuffix(line, "\n")
		out = append(out, unit{out: line, raw: line})
	}
	return out
}

// htmlText is the raw text of an HTML block, shown as it was written.
func (r *renderer) htmlText(n *ast.HTMLBlock) string {
	var b strings.Builder
	segs := n.Lines()
	for i := range segs.Len() {
		seg := segs.At(i)
		b.Write(seg.Value(r.src))
	}
	if n.HasClosure() {
		closure := n.ClosureLine
		b.Write(closure.Value(r.src))
	}
	return strings.TrimRight(b.String(), "\n")
}

// render writes units of l as one message's worth of text; first says
// whether they start the leaf (and so carry its list marker).
func (d Dialect) render(l *leaf, units []unit, first bool) string {
	prefix, rest := l.f.rest, l.f.rest
	if first {
		prefix = l.f.first
	}
	if l.f.quoted { // the quote marks the block: no indentation inside it
		prefix, rest = strings.TrimLeft(prefix, " "), ""
	}
	var s string
	if l.code {
		raw := make([]string, len(units))
		for i, u := range units {
			raw[i] = u.out
		}
		if strings.TrimSpace(prefix) == "" {
			prefix = "" // a code block keeps its lines as written
		}
		s = prefix + d.st.pre(l.lang, strings.Join(raw, "\n"))
	} else {
		var b strings.Builder
		n := 0
		for _, u := range units {
			n += len(u.out)
		}
		b.Grow(n)
		for _, u := range units {
			b.WriteString(u.out)
		}
		body := strings.TrimRight(b.String(), " \t\n")
		if l.heading {
			body = d.st.heading(body)
		}
		s = prefix + strings.ReplaceAll(body, "\n", "\n"+rest)
	}
	if l.f.quoted {
		s = d.st.quote(s)
	}
	return s
}
