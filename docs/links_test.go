package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// repoRoot is the module root, the parent of this package's directory.
const repoRoot = ".."

// page is one Markdown file: the relative links it makes and the anchors
// its headings define, as GitHub renders them.
type page struct {
	links   []string
	anchors map[string]bool
}

// pages parses README.md, CHANGELOG.md and every docs/**/*.md, keyed by
// their slash path from the repository root.
func pages(t *testing.T) map[string]*page {
	t.Helper()
	files := []string{"README.md", "CHANGELOG.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(repoRoot, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*page{}
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		out[f] = parse(src)
	}
	return out
}

// parse collects the links and heading anchors of one Markdown source.
func parse(src []byte) *page {
	p := &page{anchors: map[string]bool{}}
	seen := map[string]int{}
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			p.links = append(p.links, string(n.Destination))
		case *ast.Heading:
			slug := slugify(plain(n, src))
			if k := seen[slug]; k > 0 {
				p.anchors[slug+"-"+strconv.Itoa(k)] = true
			} else {
				p.anchors[slug] = true
			}
			seen[slug]++
		}
		return ast.WalkContinue, nil
	})
	return p
}

// plain is a node's text with its markup removed (code spans keep their text).
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		if s, ok := c.(*ast.String); ok && entering {
			b.Write(s.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

var notSlug = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)

// slugify is GitHub's heading anchor: lower case, punctuation dropped,
// spaces to hyphens.
func slugify(s string) string {
	s = notSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(s)), "")
	return strings.ReplaceAll(s, " ", "-")
}

// TestRelativeLinksResolve follows every relative link of the README and
// the guides: the file (or folder) exists, and a #fragment names a heading
// of the page it points to.
func TestRelativeLinksResolve(t *testing.T) {
	all := pages(t)
	for name, p := range all {
		for _, link := range p.links {
			if err := resolve(name, link, all); err != "" {
				t.Errorf("%s: link %q: %s", name, link, err)
			}
		}
	}
}

// resolve checks one link of the page from; "" means it resolves.
func resolve(from, link string, all map[string]*page) string {
	if link == "" || strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
		return ""
	}
	target, frag, _ := strings.Cut(link, "#")
	file := from
	if target != "" {
		file = filepath.ToSlash(filepath.Join(filepath.Dir(from), target))
		if _, err := os.Stat(filepath.Join(repoRoot, file)); err != nil {
			return "no such file " + file
		}
	}
	if frag == "" {
		return ""
	}
	p, ok := all[file]
	if !ok {
		return "#" + frag + " points into " + file + ", which is not a checked Markdown page"
	}
	if !p.anchors[frag] {
		return "no heading #" + frag + " in " + file + " (it has " + strings.Join(sortedKeys(p.anchors), ", ") + ")"
	}
	return ""
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
