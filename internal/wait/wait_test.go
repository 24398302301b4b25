package wait

import (
	"sync/atomic"
	"testing"
)

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	var polls atomic.Int32
	Eventually(t, "the third poll", func() bool { return polls.Add(1) == 3 })
	if n := polls.Load(); n != 3 {
		t.Errorf("polled %d times, want 3 (it stops at the first true)", n)
	}
}
