// Package wait is the tests' one way to await an event that has no
// signal of its own: poll a condition until it holds.
package wait

import (
	"testing"
	"time"
)

// Deadline bounds every wait. It guards against a hang, and is generous
// so a loaded machine never fails a test that would pass: it is not a
// speed assertion (benchmarks measure speed).
const Deadline = 60 * time.Second

// Eventually polls cond until it reports true, and fails the test, naming
// what it waited for, if it does not within Deadline. The first poll is at
// once; later ones back off from 5 ms to 100 ms.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Deadline)
	pause := 5 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", Deadline, what)
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}
