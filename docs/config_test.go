package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/botgw/botgw/cmd/botgw/gateway"
)

// TestConfigReferenceNamesEveryKey: every key the config loader accepts
// (the yaml tags of gateway.Config, walked by reflection) is a row of
// docs/configuration.md, and every row names a key the loader accepts.
func TestConfigReferenceNamesEveryKey(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	src, _, _ = bytes.Cut(src, []byte("\n## Environment")) // its rows are variables, not keys
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllSubmatch(src, -1) {
		rows[string(m[1])] = true
	}
	leaves, all := configKeys(reflect.TypeFor[gateway.Config]())
	// channels.<name>.turns is decoded apart from the adapters' sections
	// (its field is tagged yaml:"-"): the same keys as turns.
	leaves["channels.<name>.turns"], all["channels.<name>.turns"] = true, true
	for k := range leaves {
		if !rows[k] {
			t.Errorf("config key %s has no row in docs/configuration.md", k)
		}
	}
	for k := range rows {
		if !all[k] {
			t.Errorf("docs/configuration.md has a row for %s, which the config loader does not accept", k)
		}
	}
	if len(leaves) < 100 {
		t.Errorf("found only %d config keys; the walk of gateway.Config lost some", len(leaves))
	}
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

// configKeys walks a config type's yaml tags. leaves are the keys that hold
// a value (scalars, lists of scalars, maps); all adds the sections holding
// them. A list of sections is written key[] and a map key as <name>.
func configKeys(root reflect.Type) (leaves, all map[string]bool) {
	leaves, all = map[string]bool{}, map[string]bool{}
	var walk func(tp reflect.Type, path string, seen map[reflect.Type]bool)
	walk = func(tp reflect.Type, path string, seen map[reflect.Type]bool) {
		for tp.Kind() == reflect.Pointer {
			tp = tp.Elem()
		}
		if path != "" {
			all[path] = true
		}
		switch {
		case tp.Kind() == reflect.Slice && tp.Elem().Kind() == reflect.Struct:
			walk(tp.Elem(), path+"[]", seen)
		case tp.Kind() != reflect.Struct, reflect.PointerTo(tp).Implements(unmarshaler), seen[tp]:
			leaves[path] = true // a value, or a section that repeats its parent (provider.fallback)
		default:
			seen[tp] = true
			defer delete(seen, tp)
			for f := range tp.Fields() {
				name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if name == "-" || !f.IsExported() {
					continue
				}
				walk(f.Type, strings.TrimPrefix(path+"."+name, "."), seen)
			}
		}
	}
	walk(root, "", map[reflect.Type]bool{})
	return leaves, all
}
