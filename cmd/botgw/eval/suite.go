// Package eval runs suites of scripted conversations through the
// gateway's engine before players see a change of prompt, model or tools,
// checks each reply against the suite's expectations, and writes the
// reports (docs/evaluating.md). It is a client of the engine: it drives
// convo through its public API on a throwaway embedded Redis (gateway.Rig)
// and sends nothing to any platform.
package eval

import (
	"fmt"
	"regexp"

	"github.com/botgw/botgw"
)

// Suite is one suite file.
type Suite struct {
	File string `json:"file"`
	Name string `json:"name"`
	Bot  string `json:"bot,omitempty"`
	// Tools are the answers of the game's tools, by name, as JSON text.
	Tools map[string]string `json:"-"`
	// MinPassRate is the share of runs (with -repeat) each expectation
	// must pass, from 0 to 1; default 1.
	MinPassRate   float64         `json:"min_pass_rate"`
	Conversations []*Conversation `json:"-"`
	line          map[string]int  // the line of each top-level key
	toolLine      map[string]int  // the line of each tool's answer
}

// Conversation is one scripted conversation of a suite.
type Conversation struct {
	Suite *Suite `json:"-"`
	Name  string `json:"name"`
	Line  int    `json:"line"`
	Steps []Step `json:"-"`
}

// StepKind is what a step gives the assistant.
type StepKind string

const (
	StepUser     StepKind = "user"     // the player's text
	StepEvent    StepKind = "event"    // an app event; no reply
	StepLocation StepKind = "location" // a location pin, as a player shares it
	StepTap      StepKind = "tap"      // a tap on a choice the last reply offered
)

// Step is one input of a conversation, with what its reply must show.
type Step struct {
	Kind     StepKind        `json:"kind"`
	Line     int             `json:"line"`
	Text     string          `json:"text,omitempty"` // user text, event text, tapped label
	Key      string          `json:"key,omitempty"`  // the event's key
	Location *botgw.Location `json:"location,omitempty"`
	// Baseline is a recorded reply, shown beside the new one.
	Baseline string   `json:"baseline,omitempty"`
	Expect   []Expect `json:"-"`
}

// Replies reports whether the step runs a turn that answers the player.
func (s Step) Replies() bool { return s.Kind != StepEvent }

// Input is the step's input in words, for reports.
func (s Step) Input() string {
	if s.Kind == StepLocation && s.Location != nil {
		return s.Location.Coordinates()
	}
	return s.Text
}

// ExpectKind names an expectation.
type ExpectKind string

const (
	ExpectContains    ExpectKind = "contains"
	ExpectNotContains ExpectKind = "not_contains"
	ExpectMatches     ExpectKind = "matches"
	ExpectToolCalled  ExpectKind = "tool_called"
	ExpectChoices     ExpectKind = "choices"
	ExpectMaxTokens   ExpectKind = "max_tokens"
	ExpectJudge       ExpectKind = "judge"
)

// Expect is one expectation on a step's reply.
type Expect struct {
	Kind      ExpectKind
	Line      int
	Text      string         // contains, not_contains, judge's rubric, matches' source
	Re        *regexp.Regexp // matches
	Tool      string         // tool_called
	Args      map[string]any // tool_called: arguments that must match; nil: any
	Choices   []string       // choices
	MaxTokens int            // max_tokens
}

// String is the expectation as the suite wrote it, for reports.
func (e Expect) String() string {
	switch e.Kind {
	case ExpectToolCalled:
		if e.Args != nil {
			return fmt.Sprintf("tool_called: %s %s", e.Tool, compactJSON(e.Args))
		}
		return "tool_called: " + e.Tool
	case ExpectChoices:
		return "choices: " + compactJSON(e.Choices)
	case ExpectMaxTokens:
		return fmt.Sprintf("max_tokens: %d", e.MaxTokens)
	}
	return fmt.Sprintf("%s: %q", e.Kind, e.Text)
}

// Where is the place of a line of the suite ("suite.yaml:12").
func (s *Suite) Where(line int) string { return fmt.Sprintf("%s:%d", s.File, line) }
