// Package markup turns the Markdown a model writes into what each chat
// platform shows: Telegram HTML, Slack mrkdwn, WhatsApp markup or plain
// text. The reply is parsed once (goldmark: CommonMark and GFM tables,
// strike-through and autolinks); a Dialect renders the tree and splits it
// into messages within the platform's limit, on the tree, so a message never
// cuts a code block, a link, an entity or a character in two.
package markup

import (
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Dialect is how one platform writes formatted text and how long one of its
// messages may be. The package's dialects are values to copy, not to change
// in place; WithLimit gives one with another limit.
type Dialect struct {
	Name string
	// Limit is the longest message, in Len's unit; 0 means no limit.
	Limit int
	// Len measures a rendered message as the platform counts its length.
	Len func(string) int
	st  style
}

// WithLimit returns d with another message limit (tests, stricter configs).
func (d Dialect) WithLimit(n int) Dialect { d.Limit = n; return d }

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Render converts Markdown to d's markup, cut into messages of at most
// d.Limit that each stand alone (every tag closed, every code block
// reopened). It never returns an empty message; blank input gives none.
func (d Dialect) Render(markdown string) []string {
	src := []byte(markdown)
	doc := md.Parser().Parse(text.NewReader(src))
	r := &renderer{d: d, src: src}
	leaves := r.flatten(doc, frame{sep: "\n\n"}, nil)
	return d.pack(leaves)
}

// frame is where a block sits: the prefix of its first line and of the
// following ones (list markers, indentation), whether it is quoted, and the
// separator that goes before it.
type frame struct {
	first, rest string
	quoted      bool
	sep         string
}

// renderer walks one parsed reply.
type renderer struct {
	d   Dialect
	src []byte
}

// flatten appends the leaf blocks of n (paragraphs, headings, code blocks,
// tables, rules) in order, each knowing its frame.
func (r *renderer) flatten(n ast.Node, f frame, out []*leaf) []*leaf {
	if l := r.leafOf(n, f); l != nil {
		return append(out, l)
	}
	i := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		cf := r.childFrame(n, c, f, i)
		out = r.flatten(c, cf, out)
		i++
	}
	return out
}

// childFrame is the frame of the i-th child c of container n in frame f.
// Blocks are separated as the model wrote them: by a blank line where it
// left one, else by a line break.
func (r *renderer) childFrame(n, c ast.Node, f frame, i int) frame {
	cf := f
	if i > 0 {
		cf.first, cf.sep = f.rest, "\n"
		if c.HasBlankPreviousLines() {
			cf.sep = "\n\n"
		}
	}
	switch n := n.(type) {
	case *ast.Blockquote:
		cf.quoted = true
	case *ast.List:
		marker := r.d.st.bullet
		if n.IsOrdered() {
			marker = strconv.Itoa(n.Start+i) + ". "
		}
		cf.first += marker
		cf.rest = f.rest + strings.Repeat(" ", len([]rune(marker)))
	}
	return cf
}
