package markup

import (
	"bytes"
	"net/url"
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

// inl is the emphasis already open around a span: a dialect without nested
// markers (Slack, WhatsApp) must not open the same one twice.
type inl struct{ bold, italic, strike bool }

// inlineUnits renders the inline content of block n as units: each word of
// plain text is one, each link, code span or emphasis another.
func (r *renderer) inlineUnits(n ast.Node, s inl) []unit {
	out := make([]unit, 0, r.unitsHint(n))
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			out = r.words(out, r.textOf(c)+lineBreak(c))
		case *ast.String:
			out = r.words(out, string(c.Value))
		default:
			out = append(out, unit{out: r.span(c, s), raw: r.plain(c)})
		}
	}
	return out
}

// unitsHint guesses how many units the inline content of block n makes, a
// word per space in its source, so that their slice is allocated once.
func (r *renderer) unitsHint(n ast.Node) int {
	k := 1
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		k += bytes.Count(seg.Value(r.src), []byte(" ")) + 1
	}
	return k
}

// words appends text cut after each run of white space, escaped.
func (r *renderer) words(out []unit, text string) []unit {
	for text != "" {
		i := strings.IndexFunc(text, unicode.IsSpace)
		if i < 0 {
			i = len(text)
		}
		j := i + len(text[i:]) - len(strings.TrimLeftFunc(text[i:], unicode.IsSpace))
		out = append(out, unit{out: r.d.st.escape(text[:j]), raw: text[:j]})
		text = text[j:]
	}
	return out
}

// span renders one inline node with everything inside it.
func (r *renderer) span(n ast.Node, s inl) string {
	st := r.d.st
	switch n := n.(type) {
	case *ast.Text:
		return st.escape(r.textOf(n) + lineBreak(n))
	case *ast.String:
		return st.escape(string(n.Value))
	case *ast.CodeSpan:
		return st.code(r.plain(n))
	case *ast.Emphasis:
		if n.Level >= 2 && !s.bold {
			s.bold = true
			return wrap(st.bold, r.children(n, s))
		}
		if n.Level == 1 && !s.italic {
			s.italic = true
			return wrap(st.italic, r.children(n, s))
		}
	case *east.Strikethrough:
		if !s.strike {
			s.strike = true
			return wrap(st.strike, r.children(n, s))
		}
	case *ast.Link:
		return r.link(string(n.Destination), r.plain(n))
	case *ast.Image:
		return r.link(string(n.Destination), r.plain(n))
	case *ast.AutoLink:
		u, label := string(n.URL(r.src)), string(n.Label(r.src))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(u, "mailto:") {
			u = "mailto:" + u
		}
		return r.link(u, label)
	case *ast.RawHTML:
		return st.escape(r.rawHTML(n))
	case *east.TaskCheckBox:
		return map[bool]string{true: "☑ ", false: "☐ "}[n.IsChecked]
	}
	return r.children(n, s)
}

func (r *renderer) children(n ast.Node, s inl) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.WriteString(r.span(c, s))
	}
	return b.String()
}

// wrap puts marks around inner, unless there is nothing to mark (platforms
// reject empty entities).
func wrap(marks [2]string, inner string) string {
	if strings.TrimSpace(inner) == "" {
		return inner
	}
	return marks[0] + inner + marks[1]
}

// link renders a link; one to anything but the web, mail or Telegram is
// shown as its label only.
func (r *renderer) link(dest, label string) string {
	if label == "" {
		label = dest
	}
	if !safeURL(dest) {
		return r.d.st.escape(label)
	}
	return r.d.st.link(dest, label)
}

func safeURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "http", "https":
		return u.Host != ""
	case "mailto", "tg":
		return u.Opaque != "" || u.Host != ""
	}
	return false
}

// shown reports whether a link's label already shows its address
// ("https://x.org", "x.org" for http://x.org, "a@b.org" for mailto:a@b.org).
func shown(dest, label string) bool {
	return dest == label || dest == "mailto:"+label || strings.HasSuffix(dest, "://"+label)
}

// plain is the text of an inline node without any markup.
func (r *renderer) plain(n ast.Node) string {
	switch n := n.(type) {
	case *ast.Text:
		t := r.textOf(n)
		if n.SoftLineBreak() || n.HardLineBreak() {
			t += " "
		}
		return t
	case *ast.String:
		return string(n.Value)
	case *ast.AutoLink:
		return string(n.Label(r.src))
	case *ast.RawHTML:
		return r.rawHTML(n)
	}
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b.WriteString(r.plain(c))
	}
	if _, ok := n.(*ast.CodeSpan); ok {
		return strings.ReplaceAll(b.String(), "\n", " ")
	}
	return b.String()
}

// textOf is a text node's text with backslash escapes and entities resolved.
func (r *renderer) textOf(n *ast.Text) string {
	v := n.Segment.Value(r.src)
	if n.IsRaw() {
		return string(v)
	}
	v = util.UnescapePunctuations(v)
	v = util.ResolveNumericReferences(v)
	return string(util.ResolveEntityNames(v))
}

func lineBreak(n *ast.Text) string {
	if n.SoftLineBreak() || n.HardLineBreak() {
		return "\n"
	}
	return ""
}

func (r *renderer) rawHTML(n *ast.RawHTML) string {
	var b strings.Builder
	for i := range n.Segments.Len() {
		seg := n.Segments.At(i)
		b.Write(seg.Value(r.src))
	}
	return b.String()
}
