package eval

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/botgw/botgw"
)

var stepKinds = []string{string(StepUser), string(StepEvent), string(StepLocation), string(StepTap)}

func (p *parser) steps(n *yaml.Node, field string) []Step {
	if n.Kind != yaml.SequenceNode {
		p.bad(n, field, "want a list of steps (user, event, location or tap)")
		return nil
	}
	var out []Step
	for i, sn := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		st := Step{Line: sn.Line}
		var expect *yaml.Node
		known := append(append([]string{}, stepKinds...), "expect", "baseline")
		p.fields(sn, f, known, func(key string, k, v *yaml.Node) {
			switch key {
			case "expect":
				expect = v
			case "baseline":
				st.Baseline = p.str(v, f+".baseline")
			default:
				if st.Kind != "" {
					p.bad(k, f+"."+key, "a step is one of %s; this one is already %s", strings.Join(stepKinds, ", "), st.Kind)
					return
				}
				st.Kind = StepKind(key)
				p.input(&st, v, f+"."+key)
			}
		})
		if sn.Kind != yaml.MappingNode {
			continue
		}
		if st.Kind == "" {
			p.bad(sn, f, "the step gives no input; want one of %s", strings.Join(stepKinds, ", "))
			continue
		}
		if !st.Replies() && (expect != nil || st.Baseline != "") {
			p.bad(sn, f, "an event gets no reply, so it takes no expect or baseline; put them on the next user step")
		}
		if expect != nil {
			st.Expect = p.expects(expect, f+".expect")
		}
		out = append(out, st)
	}
	return out
}

// input reads the step's input: text, an event or a location.
func (p *parser) input(st *Step, v *yaml.Node, field string) {
	switch st.Kind {
	case StepUser, StepTap:
		st.Text = p.str(v, field)
		if strings.TrimSpace(st.Text) == "" && v.Kind == yaml.ScalarNode {
			p.bad(v, field, "empty text")
		}
	case StepEvent:
		if v.Kind == yaml.ScalarNode {
			st.Text = p.str(v, field)
			return
		}
		p.fields(v, field, []string{"text", "key"}, func(key string, _, x *yaml.Node) {
			if key == "text" {
				st.Text = p.str(x, field+".text")
			} else {
				st.Key = p.str(x, field+".key")
			}
		})
		if strings.TrimSpace(st.Text) == "" && v.Kind == yaml.MappingNode {
			p.bad(v, field+".text", "the event has no text")
		}
	case StepLocation:
		p.location(st, v, field)
	}
}

func (p *parser) location(st *Step, v *yaml.Node, field string) {
	var loc struct {
		Latitude  *float64 `yaml:"latitude"`
		Longitude *float64 `yaml:"longitude"`
		Title     string   `yaml:"title"`
		Address   string   `yaml:"address"`
	}
	ok := p.fields(v, field, []string{"latitude", "longitude", "title", "address"}, func(string, *yaml.Node, *yaml.Node) {})
	if !ok {
		return
	}
	if err := v.Decode(&loc); err != nil {
		p.bad(v, field, "%v", err)
		return
	}
	if loc.Latitude == nil || loc.Longitude == nil {
		p.bad(v, field, "want latitude and longitude")
		return
	}
	l := botgw.Location{Latitude: *loc.Latitude, Longitude: *loc.Longitude, Title: loc.Title, Address: loc.Address}
	if err := l.Validate(); err != nil {
		p.bad(v, field, "%v", err)
		return
	}
	st.Location = &l
}

var expectKinds = []string{string(ExpectContains), string(ExpectNotContains), string(ExpectMatches),
	string(ExpectToolCalled), string(ExpectChoices), string(ExpectMaxTokens), string(ExpectJudge)}

func (p *parser) expects(n *yaml.Node, field string) []Expect {
	if n.Kind != yaml.SequenceNode {
		p.bad(n, field, "want a list of expectations (%s)", strings.Join(expectKinds, ", "))
		return nil
	}
	var out []Expect
	for i, en := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		if en.Kind == yaml.MappingNode && len(en.Content) != 2 {
			p.bad(en, f, "one expectation per list item (- contains: ..., - matches: ...)")
			continue
		}
		p.fields(en, f, expectKinds, func(key string, k, v *yaml.Node) {
			e := Expect{Kind: ExpectKind(key), Line: k.Line}
			if p.expect(&e, v, f+"."+key) {
				out = append(out, e)
			}
		})
	}
	return out
}

// expect reads one expectation's value; false when it is invalid.
func (p *parser) expect(e *Expect, v *yaml.Node, field string) bool {
	before := len(p.problems)
	switch e.Kind {
	case ExpectContains, ExpectNotContains, ExpectJudge:
		if e.Text = p.str(v, field); e.Text == "" && len(p.problems) == before {
			p.bad(v, field, "empty text")
		}
	case ExpectMatches:
		e.Text = p.str(v, field)
		re, err := regexp.Compile(e.Text)
		if err != nil && len(p.problems) == before {
			p.bad(v, field, "the regular expression does not compile (RE2 syntax): %v", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		e.Re = re
	case ExpectToolCalled:
		p.toolCalled(e, v, field)
	case ExpectChoices:
		if err := v.Decode(&e.Choices); err != nil || len(e.Choices) == 0 {
			p.bad(v, field, "want a list of choice labels")
		}
	case ExpectMaxTokens:
		if err := v.Decode(&e.MaxTokens); err != nil || e.MaxTokens <= 0 {
			p.bad(v, field, "want a positive number of tokens, got %q", v.Value)
		}
	}
	return len(p.problems) == before
}

// toolCalled reads "name" or {name, args}.
func (p *parser) toolCalled(e *Expect, v *yaml.Node, field string) {
	if v.Kind == yaml.ScalarNode {
		e.Tool = p.str(v, field)
		return
	}
	p.fields(v, field, []string{"name", "args"}, func(key string, _, x *yaml.Node) {
		if key == "name" {
			e.Tool = p.str(x, field+".name")
			return
		}
		if err := x.Decode(&e.Args); err != nil || x.Kind != yaml.MappingNode {
			p.bad(x, field+".args", "want a mapping of argument names to values")
		}
		if e.Args == nil {
			e.Args = map[string]any{}
		}
	})
	if e.Tool == "" && v.Kind == yaml.MappingNode {
		p.bad(v, field+".name", "name the tool")
	}
}
