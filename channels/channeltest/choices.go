package channeltest

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/botgw/botgw"
)

// The choice cases (CONTRACT.md, "Choices the player can tap").
const (
	CaseChoicesShown = "choices/shown-natively"
	CaseChoiceTap    = "choices/tap-is-the-players-words"
	CaseChoiceTwice  = "choices/tap-delivered-twice-stored-once"
)

// Chooser is a Platform whose adapter shows choices. Every harness
// implements it, or names the choice cases in Lacks.
type Chooser interface {
	// Offered returns, for every message the platform accepted (in the
	// order of Sent), the choices the player is shown with it, as labels
	// (nil for none).
	Offered() [][]string
	// Tap makes the platform deliver the player's tap on choice i of the
	// n-th accepted message (from 0), the way it really would, with
	// deliver as the gateway's store; on a platform without buttons it is
	// the player's answer naming the choice by its number. The same seq is
	// the same tap.
	Tap(t *testing.T, n, i, seq int, deliver botgw.Deliver)
}

var choiceLabels = []string{"Take the ferry", "Walk <fast> & far", "Wait for *the* bus"}

var choiceCases = []suiteCase{
	{CaseChoicesShown, func(t *testing.T, h Harness, e *env) {
		c, n := e.offer(t, h)
		if got := c.Offered()[n]; !slices.Equal(got, choiceLabels) {
			t.Errorf("shown %q with the reply, want %q in order", got, choiceLabels)
		}
	}},
	{CaseChoiceTap, func(t *testing.T, h Harness, e *env) {
		c, n := e.offer(t, h)
		in := e.tap(t, c, n, 1, 7)
		if len(in) != 1 {
			t.Fatalf("%d inputs stored from one tap, want 1", len(in))
		}
		want := choiceLabels[1]
		if nc, ok := e.ch.(botgw.NumberedChoices); ok && nc.NumberedChoices() {
			want = "2"
		}
		if in[0].Kind != botgw.KindText || in[0].Text != want || in[0].Chat != e.privateKey(h) || in[0].ID == "" {
			t.Errorf("stored %s %q in %s (id %q), want text %q in %s", in[0].Kind, in[0].Text, in[0].Chat, in[0].ID, want, e.privateKey(h))
		}
		if tap := in[0].Tap; tap != nil && tap.Index != 1 {
			t.Errorf("tap %+v, want index 1", *tap)
		}
	}},
	{CaseChoiceTwice, func(t *testing.T, h Harness, e *env) {
		c, n := e.offer(t, h)
		e.tap(t, c, n, 0, 8)
		if again := e.tap(t, c, n, 0, 8); len(again) != 0 {
			t.Errorf("the same tap delivered twice was stored twice: ids %q", ids(e.store.Stored()))
		}
	}},
}

// offer sends a reply with choices to the private chat and returns the
// platform as a Chooser with the index of the message carrying them.
func (e *env) offer(t *testing.T, h Harness) (Chooser, int) {
	t.Helper()
	c, ok := e.Platform.(Chooser)
	if !ok {
		t.Fatal("the harness's platform is not a channeltest.Chooser; name the choice cases in Lacks if the platform has none")
	}
	out := botgw.Outbound{Chat: e.privateKey(h), ID: "r-choices", Text: "The bridge is closed. Which way?",
		Offer: botgw.Offer{Choices: choiceLabels, Ref: "Rf0123456_-"}}
	if err := e.ch.Send(t.Context(), out); err != nil {
		t.Fatalf("Send with choices: %v", err)
	}
	offered := c.Offered()
	for n := len(offered) - 1; n >= 0; n-- {
		if offered[n] != nil {
			return c, n
		}
	}
	t.Fatalf("no message shown with choices (%d messages)", len(offered))
	return nil, 0
}

// tap has the platform deliver a tap and returns what got stored from it.
func (e *env) tap(t *testing.T, c Chooser, n, i, seq int) []botgw.Inbound {
	t.Helper()
	before := len(e.store.Stored())
	c.Tap(t, n, i, seq, e.store.Deliver)
	return e.store.Stored()[before:]
}

// NumberedLabels reads the choices back from a message whose last lines
// are a numbered list ("1. Take the ferry"); nil when it has none.
func NumberedLabels(text string) []string {
	lines := strings.Split(text, "\n")
	start := len(lines)
	for start > 0 && numbered.MatchString(lines[start-1]) {
		start--
	}
	var out []string
	for i, l := range lines[start:] {
		m := numbered.FindStringSubmatch(l)
		if m[1] != strconv.Itoa(i+1) {
			return nil
		}
		out = append(out, m[2])
	}
	return out
}

var numbered = regexp.MustCompile(`^(\d+)\. (.+)$`)
