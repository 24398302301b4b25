package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Invalid lists what is wrong with the suites or their use of the config,
// each problem as "file:line: field: what" (exit status 2).
type Invalid struct{ Problems []string }

func (e *Invalid) Error() string { return strings.Join(e.Problems, "\n") }

// Load reads the suites at paths; a folder means every *.yaml in it. Every
// problem of every file is reported at once, as *Invalid.
func Load(paths []string) ([]*Suite, error) {
	files, err := suiteFiles(paths)
	if err != nil {
		return nil, err
	}
	var suites []*Suite
	bad := &Invalid{}
	for _, f := range files {
		s, problems := loadFile(f)
		bad.Problems = append(bad.Problems, problems...)
		if s != nil {
			suites = append(suites, s)
		}
	}
	if len(bad.Problems) > 0 {
		return nil, bad
	}
	return suites, nil
}

// suiteFiles expands folders into their *.yaml files, in name order.
func suiteFiles(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, &Invalid{[]string{"no suite given: botgw eval [flags] SUITE.yaml|FOLDER..."}}
	}
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, &Invalid{[]string{fmt.Sprintf("%s: %v", p, errors.Unwrap(err))}}
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		found, _ := filepath.Glob(filepath.Join(p, "*.yaml"))
		if len(found) == 0 {
			return nil, &Invalid{[]string{p + ": no *.yaml suite in this folder"}}
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	return files, nil
}

// parser reads one suite file, collecting every problem with its place.
type parser struct {
	s        *Suite
	problems []string
}

func (p *parser) bad(n *yaml.Node, field, format string, args ...any) {
	p.problems = append(p.problems, fmt.Sprintf("%s:%d: %s: %s", p.s.File, n.Line, field, fmt.Sprintf(format, args...)))
}

func loadFile(file string) (*Suite, []string) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", file, err)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, []string{fmt.Sprintf("%s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))}
	}
	p := &parser{s: &Suite{File: file, MinPassRate: 1, line: map[string]int{}}}
	if len(doc.Content) == 0 {
		return nil, []string{file + ":1: the file is empty; want name and conversations"}
	}
	p.suite(doc.Content[0])
	return p.s, p.problems
}

// fields walks mapping n, calling each for every key, and reports keys
// not in known.
func (p *parser) fields(n *yaml.Node, field string, known []string, each func(key string, k, v *yaml.Node)) bool {
	if n.Kind != yaml.MappingNode {
		p.bad(n, field, "want a mapping with %s", strings.Join(known, ", "))
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(known, k.Value) {
			p.bad(k, join(field, k.Value), "unknown key; want one of %s", strings.Join(known, ", "))
			continue
		}
		each(k.Value, k, v)
	}
	return true
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func (p *parser) suite(n *yaml.Node) {
	p.s.line["suite"] = n.Line
	p.fields(n, "", []string{"name", "bot", "tools", "min_pass_rate", "conversations"}, func(key string, k, v *yaml.Node) {
		p.s.line[key] = k.Line
		switch key {
		case "name":
			p.s.Name = p.str(v, "name")
		case "bot":
			p.s.Bot = p.str(v, "bot")
		case "tools":
			p.tools(v)
		case "min_pass_rate":
			p.s.MinPassRate = p.rate(v)
		case "conversations":
			p.conversations(v)
		}
	})
	if p.s.Name == "" {
		p.s.Name = strings.TrimSuffix(filepath.Base(p.s.File), filepath.Ext(p.s.File))
	}
	if len(p.s.Conversations) == 0 && len(p.problems) == 0 {
		p.bad(n, "conversations", "the suite has no conversations")
	}
}

// str is scalar n as a string.
func (p *parser) str(n *yaml.Node, field string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.bad(n, field, "want a string")
		return ""
	}
	return n.Value
}

// rate reads min_pass_rate: 0.8 or "80%".
func (p *parser) rate(n *yaml.Node) float64 {
	var f float64
	v := strings.TrimSpace(n.Value)
	pct := strings.HasSuffix(v, "%")
	_, err := fmt.Sscan(strings.TrimSuffix(v, "%"), &f)
	if pct {
		f /= 100
	}
	if n.Kind != yaml.ScalarNode || err != nil || f < 0 || f > 1 {
		p.bad(n, "min_pass_rate", "want a share from 0 to 1 (0.8) or a percentage (80%%), got %q", n.Value)
		return 1
	}
	return f
}

// tools reads the tools' answers: a mapping or list is sent as its JSON,
// a string as it is.
func (p *parser) tools(n *yaml.Node) {
	p.s.Tools, p.s.toolLine = map[string]string{}, map[string]int{}
	if n.Kind != yaml.MappingNode {
		p.bad(n, "tools", "want a mapping of tool names to their answers")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p.s.toolLine[k.Value] = k.Line
		if v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
			p.s.Tools[k.Value] = v.Value
			continue
		}
		var x any
		if err := v.Decode(&x); err != nil {
			p.bad(v, "tools."+k.Value, "%v", err)
			continue
		}
		p.s.Tools[k.Value] = compactJSON(x)
	}
}

func (p *parser) conversations(n *yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		p.bad(n, "conversations", "want a list of conversations, each with name and steps")
		return
	}
	for i, cn := range n.Content {
		field := fmt.Sprintf("conversations[%d]", i)
		c := &Conversation{Suite: p.s, Line: cn.Line, Name: fmt.Sprintf("conversation %d", i+1)}
		var steps *yaml.Node
		p.fields(cn, field, []string{"name", "steps"}, func(key string, k, v *yaml.Node) {
			if key == "name" {
				c.Name = p.str(v, field+".name")
			} else {
				steps = v
			}
		})
		if cn.Kind != yaml.MappingNode {
			continue
		}
		if steps == nil {
			p.bad(cn, field+".steps", "the conversation has no steps")
			continue
		}
		c.Steps = p.steps(steps, field+".steps")
		p.s.Conversations = append(p.s.Conversations, c)
	}
}
