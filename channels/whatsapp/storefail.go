package whatsapp

import (
	"context"
	"fmt"
	"sync"

	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
)

// failures counts, per message id, the deliveries of a message that could
// not be stored. Bounded: past 10,000 ids it starts over, which only
// delays a dead letter. Safe for concurrent use.
type failures struct {
	mu sync.Mutex
	n  map[string]int
}

// add counts one failure of id and returns the count so far.
func (f *failures) add(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil || len(f.n) > 10000 {
		f.n = map[string]int{}
	}
	f.n[id]++
	return f.n[id]
}

func (f *failures) forget(id string) {
	f.mu.Lock()
	delete(f.n, id)
	f.mu.Unlock()
}

// poisoned keeps in as a dead letter when it failed to store poisonAfter
// times and the store takes writes now (so waiting cannot help), and
// reports whether it did: the message may then be acknowledged.
func (a *Adapter) poisoned(ctx context.Context, in botgw.Inbound) bool {
	n := a.failures.add(in.ID)
	if n < a.tm.poisonAfter || a.dead == nil {
		return false
	}
	if err := a.storeWritable(ctx); err != nil {
		return false // the store is the problem: wait for it
	}
	reason := fmt.Sprintf("whatsapp message could not be stored %d times while the store took other writes", n)
	dctx, cancel := context.WithTimeout(ctx, a.tm.storeTimeout)
	defer cancel()
	dl := botgw.DeadLetter{Chat: in.Chat.String(), Kind: botgw.DeadInput, Reason: reason, Attempts: n, Text: in.Text, Input: &in}
	id, err := a.dead.AddDeadLetter(dctx, dl)
	if err != nil {
		a.log.Error("whatsapp message could not be stored nor kept as a dead letter; it stays unacknowledged", "chat", in.Chat, "err", err)
		return false
	}
	a.failures.forget(in.ID)
	a.counts.deadLettered.Add(1)
	a.log.Warn("whatsapp message that cannot be stored kept as a dead letter and acknowledged", "chat", in.Chat, "dead_letter", id, "attempts", n)
	return true
}

// unresolved is what is known of a message whose chat could not be
// determined (the alias store failed): its chat as WhatsApp addressed it.
func unresolved(e *events.Message, err error) botgw.Inbound {
	c, _ := content(e.Message)
	return botgw.Inbound{Chat: botgw.ChatKey{Channel: Name, ID: e.Info.Chat.ToNonAD().String()}, Kind: c.Kind,
		ID: e.Info.ID, UserName: e.Info.PushName, Text: c.Text, At: e.Info.Timestamp,
		Location: c.Location, Media: c.Media, Meta: map[string]string{"unresolved": err.Error()}}
}
