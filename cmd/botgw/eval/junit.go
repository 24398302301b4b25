package eval

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"
)

// JUnit XML, the shape CI systems read: a testsuite per suite file, a
// testcase per conversation, the failed expectations as its failure.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Time     float64      `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		File     string      `xml:"file,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		File      string        `xml:"file,attr"`
		Line      int           `xml:"line,attr"`
		Time      float64       `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes the JUnit XML report to file.
func (rep *Report) WriteJUnit(file string) error {
	out := junitSuites{Name: "botgw eval", Time: float64(rep.DurationMS) / 1000}
	index := map[string]int{}
	for _, r := range rep.Conversations {
		i, ok := index[r.File]
		if !ok {
			i, index[r.File] = len(out.Suites), len(out.Suites)
			out.Suites = append(out.Suites, junitSuite{Name: r.Suite, File: r.File})
		}
		s := &out.Suites[i]
		c := junitCase{Name: r.Name, Classname: r.Suite, File: r.File, Line: r.Line, Time: float64(r.DurationMS) / 1000}
		if !r.Pass {
			c.Failure = junitFailureOf(r)
			s.Failures++
			out.Failures++
		}
		s.Cases = append(s.Cases, c)
		s.Tests++
		out.Tests++
	}
	b, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode junit: %w", err)
	}
	if err := os.WriteFile(file, append([]byte(xml.Header), append(b, '\n')...), 0o644); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	return nil
}

// junitFailureOf is the testcase's failure: each failed expectation with its
// place and reason, and the reply it was checked on.
func junitFailureOf(r *Result) *junitFailure {
	var msgs, text []string
	if r.Error != "" {
		msgs = append(msgs, r.Error)
		text = append(text, "stopped: "+r.Error)
	}
	for _, s := range r.Steps {
		for _, e := range s.Expect {
			if e.Rate >= r.MinPassRate {
				continue
			}
			line := fmt.Sprintf("%s:%d: %s: %s", r.File, e.Line, e.Expect, e.Reason)
			if r.Runs > 1 {
				line += fmt.Sprintf(" (%d/%d runs)", e.Passes, e.Runs)
			}
			msgs = append(msgs, line)
			text = append(text, line, "  reply: "+s.Reply)
		}
	}
	if len(msgs) == 0 {
		msgs = append(msgs, "failed")
	}
	return &junitFailure{Message: strings.Join(msgs, "; "), Type: "expectation", Text: strings.Join(text, "\n")}
}
