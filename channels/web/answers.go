package web

import (
	"time"

	"github.com/botgw/botgw"
)

// A client that lost the answer to POST /v1/chat sends the same id again
// (docs/http-api.md). The store takes the message once, so no second turn
// runs and no second reply comes: the retry is answered from the replies
// the adapter remembers, each under its outbox id, "re-" and the id of the
// message it answers (the last of a burst), for UnclaimedTTL, at most
// maxUnclaimed per chat and maxUnclaimedChats chats, like replies kept for
// polling.

// remember keeps m for a retry of the message it answers. Callers hold mu.
func (a *Adapter) remember(m botgw.Outbound, now time.Time) {
	if m.Text == "" {
		return
	}
	q := append(a.answered[m.Chat], kept{m: m, at: now})
	if len(q) > maxUnclaimed {
		q = q[len(q)-maxUnclaimed:]
	}
	a.answered[m.Chat] = q
	if len(a.answered) > maxUnclaimedChats {
		evictOldest(a.answered)
	}
}

// answerOf returns the reply to the message id of chat k when it was sent
// already, and takes it from the replies kept for polling: the client that
// retried has it now.
func (a *Adapter) answerOf(k botgw.ChatKey, id string) (botgw.Outbound, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	for _, r := range a.fresh(a.answered[k], now) {
		if r.m.ID != "re-"+id {
			continue
		}
		q := a.unclaimed[k]
		for i, u := range q {
			if u.m.ID == r.m.ID {
				a.unclaimed[k] = append(q[:i:i], q[i+1:]...)
				break
			}
		}
		if len(a.unclaimed[k]) == 0 {
			delete(a.unclaimed, k)
		}
		return r.m, true
	}
	return botgw.Outbound{}, false
}
