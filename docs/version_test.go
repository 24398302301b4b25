package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/botgw/botgw"
)

// TestChangelogNamesTheVersion: the newest release in CHANGELOG.md is the
// version the binary reports (`botgw version`).
func TestChangelogNamesTheVersion(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("CHANGELOG.md has no released version (## [X.Y.Z] - YYYY-MM-DD)")
	}
	if string(m[1]) != botgw.Version {
		t.Errorf("CHANGELOG.md's newest release is %s, botgw.Version is %s", m[1], botgw.Version)
	}
}
