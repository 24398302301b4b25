package docs

import (
	"archive/zip"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// TestModuleZipHoldsEveryPackage builds the module zip that the Go proxy
// serves for `go install github.com/botgw/botgw/cmd/botgw@version` and
// checks that every package directory of the tree is in it: a folder the
// zip leaves out (a nested go.mod, a folder named vendor) would make that
// install fail.
func TestModuleZipHoldsEveryPackage(t *testing.T) {
	m := module.Version{Path: "github.com/botgw/botgw", Version: "v0.1.0"}
	var buf bytes.Buffer
	if err := modzip.CreateFromDir(&buf, m, repoRoot); err != nil {
		t.Fatalf("create module zip: %v", err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	zipped := map[string]bool{}
	prefix := m.Path + "@" + m.Version + "/"
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, ".go") {
			zipped[path.Dir(strings.TrimPrefix(f.Name, prefix))] = true
		}
	}
	pkgs := packageDirs(t)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d package directories in the tree: %v", len(pkgs), pkgs)
	}
	for _, dir := range pkgs {
		if !zipped[dir] {
			t.Errorf("package %s is not in the module zip", dir)
		}
	}
}

// packageDirs lists the tree's directories holding Go files, as slash
// paths from the root ("." for the root package), skipping what the go
// command ignores (testdata, names starting with . or _).
func packageDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(repoRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != repoRoot && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(repoRoot, filepath.Dir(p))
		if rel = filepath.ToSlash(rel); len(dirs) == 0 || dirs[len(dirs)-1] != rel {
			dirs = append(dirs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}
