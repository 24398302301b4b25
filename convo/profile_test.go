package convo

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
)

// A CPU profile tells a chat's first turn from its later ones: the worker
// running a turn carries the label turn=first, then turn=later.
func TestTurnsAreLabelledForProfiles(t *testing.T) {
	prov := fake.New()
	r := newRig(t, openStore(t, false, fastStore), prov, Config{})
	for i, want := range []string{"first", "later", "later"} {
		release := prov.Block()
		r.say(t, testChat, fmt.Sprint("m", i), "I am at the theatre")
		wait.Eventually(t, "the turn asking the model", func() bool { return len(prov.Requests()) == i+1 })
		if got := askingTurnLabel(t); got != want {
			t.Errorf("turn %d runs labelled turn=%q, want %q", i+1, got, want)
		}
		release()
		r.ch.Wait(t, i+1, 5*time.Second)
	}
}

var turnLabel = regexp.MustCompile(`"turn":"(\w+)"`)

// askingTurnLabel is the turn label of the goroutine waiting in the fake
// provider, read from the goroutine profile ("" without one).
func askingTurnLabel(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		t.Fatal(err)
	}
	for _, stack := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(stack, "fake.(*Provider).Complete") {
			if m := turnLabel.FindStringSubmatch(stack); m != nil {
				return m[1]
			}
			return ""
		}
	}
	t.Fatal("no goroutine is waiting on the model")
	return ""
}
