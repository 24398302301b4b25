package convo

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/providers/fake"
)

// A replica whose lease expires during a slow turn (its renewal suppressed
// here) must not commit: the chat has moved to another replica, and the
// stale answer would duplicate the turn. The new holder has not committed
// yet, so the state version still matches: only the lease fences it.
func TestExpiredLeaseRefusesTheStaleCommit(t *testing.T) {
	stores := openShared(t, 2, fastStore) // lease 1s
	slow := fake.New()
	releaseSlow := slow.Block()
	defer releaseSlow()
	stale := newRig(t, stores[0], slow, Config{LeaseRenew: time.Hour})
	stale.say(t, testChat, "1", "slow question")
	waitFor(t, func() bool { return len(slow.Requests()) == 1 })

	next := fake.New()
	releaseNext := next.Block()
	defer releaseNext()
	other := newRig(t, stores[1], next, Config{})
	// Both replicas race for the chat's claim every visibility timeout
	// (0.5 s); the stale one, still running its turn, wins about half of
	// them, so the other may need a few rounds.
	awaitCond(t, 15*time.Second, "the other replica to take the expired lease", func() bool { return len(next.Requests()) == 1 })
	releaseSlow()
	waitFor(t, func() bool {
		return strings.Contains(stale.logs.String(), `msg="commit turn"`) &&
			strings.Contains(stale.logs.String(), botgw.ErrLeaseLost.Error())
	})
	releaseNext()
	other.ch.Wait(t, 1, 5*time.Second)

	if sent := stale.ch.Sent(); len(sent) != 0 {
		t.Errorf("the stale replica sent %d replies, want none", len(sent))
	}
	h := history(t, stores[1], testChat)
	if got := userTexts(h); !slices.Equal(got, []string{"slow question"}) {
		t.Errorf("history user messages = %q, want the question once", got)
	}
	if n := countRole(h, botgw.RoleAssistant); n != 1 {
		t.Errorf("history holds %d answers, want 1 (the stale turn was committed)", n)
	}
}

func countRole(h []botgw.Message, r botgw.Role) int {
	n := 0
	for _, m := range h {
		if m.Role == r {
			n++
		}
	}
	return n
}
