package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeIsTheFrontDoor: README.md stays short (at most 250 lines),
// opens with the two commands that matter on a fresh machine, and links to
// every guide in docs/ and to the decision records.
func TestReadmeIsTheFrontDoor(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(src)
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("README.md has %d lines, want at most 250: move detail into docs/", n)
	}
	lines := strings.SplitN(readme, "\n", 8)
	head := strings.Join(lines[:min(len(lines), 7)], "\n")
	for _, cmd := range []string{"go run ./cmd/botgw", "go test -race -timeout 30m ./..."} {
		if !strings.Contains(head, cmd) {
			t.Errorf("README.md's first lines do not give %q:\n%s", cmd, head)
		}
	}
	linked := map[string]bool{}
	for _, l := range parse(src).links {
		target, _, _ := strings.Cut(l, "#")
		linked[strings.TrimSuffix(target, "/")] = true
	}
	guides, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range append(guides, filepath.Join(repoRoot, "docs", "adr")) {
		rel, _ := filepath.Rel(repoRoot, g)
		if rel = filepath.ToSlash(rel); !linked[rel] {
			t.Errorf("README.md does not link to %s", rel)
		}
	}
}
