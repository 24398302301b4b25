package whatsapp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.mau.fi/whatsmeow/types/events"

	"github.com/botgw/botgw"
)

// Backlog modes (Config.Backlog): what happens to messages older than
// max_backlog_age when they arrive (after an outage or a ban).
const (
	BacklogAnswer    = "answer"    // answer them as if they were new
	BacklogSummarize = "summarize" // one brief reply per chat covering them
	BacklogIgnore    = "ignore"    // store them in the history, send nothing
)

// backlogQuiet flushes held backlog when WhatsApp never says the offline
// sync is over: this long after the last old message.
const backlogQuiet = 30 * time.Second

// held is the backlog of one chat waiting for its one reply.
type held struct {
	n      int
	oldest time.Time
	last   string // id of the newest old message
}

// backlog collects, per chat, the old messages stored since the last
// flush. Safe for concurrent use.
type backlog struct {
	mu    sync.Mutex
	chats map[botgw.ChatKey]*held
	timer *time.Timer
}

// classify marks in as backlog when it is older than max_backlog_age and
// the mode is not answer.
func (a *Adapter) classify(in *botgw.Inbound) {
	if a.cfg.backlogMode() == BacklogAnswer || in.Kind == botgw.KindEvent {
		return
	}
	if a.clock().Sub(in.At) > a.cfg.maxBacklogAge() {
		in.Backlog = true
		a.counts.backlog.Add(1)
	}
}

// noteStored records a stored message: old ones wait for the chat's
// summary (mode summarize); a live one is answered with them, so the
// chat needs no summary.
func (a *Adapter) noteStored(ctx context.Context, in botgw.Inbound) {
	if a.cfg.backlogMode() != BacklogSummarize {
		return
	}
	b := &a.backlog
	b.mu.Lock()
	defer b.mu.Unlock()
	if !in.Backlog {
		delete(b.chats, in.Chat)
		return
	}
	if b.chats == nil {
		b.chats = map[botgw.ChatKey]*held{}
	}
	h := b.chats[in.Chat]
	if h == nil {
		h = &held{oldest: in.At}
		b.chats[in.Chat] = h
	}
	h.n, h.last = h.n+1, in.ID
	if in.At.Before(h.oldest) {
		h.oldest = in.At
	}
	if b.timer != nil {
		b.timer.Stop()
	}
	b.timer = time.AfterFunc(backlogQuiet, func() { a.flushBacklog(context.WithoutCancel(ctx)) })
}

// offlineSync notes the start and end of what WhatsApp queued while this
// device was offline (events.OfflineSyncPreview, events.OfflineSyncCompleted);
// at the end every chat with old messages gets its one reply.
func (a *Adapter) offlineSync(ctx context.Context, evt any) {
	switch e := evt.(type) {
	case *events.OfflineSyncPreview:
		a.log.Info("whatsapp delivering what arrived while offline", "messages", e.Messages, "total", e.Total)
	case *events.OfflineSyncCompleted:
		a.log.Info("whatsapp offline backlog delivered", "count", e.Count)
		go a.flushBacklog(context.WithoutCancel(ctx))
	}
}

// flushBacklog asks, for each chat holding old messages, for one reply
// covering them: an event with respond set, so the engine runs one turn
// over everything the chat holds. The reply is paced like any other.
func (a *Adapter) flushBacklog(ctx context.Context) {
	b := &a.backlog
	b.mu.Lock()
	chats := b.chats
	b.chats = nil
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
	for k, h := range chats {
		if !a.persist(ctx, summaryRequest(k, h, a.clock())) {
			a.log.Error("whatsapp backlog stored but its reply could not be requested; the chat's next message gets it answered", "chat", k)
		}
	}
}

// summaryRequest is the event asking for one reply to a chat's backlog.
func summaryRequest(k botgw.ChatKey, h *held, now time.Time) botgw.Inbound {
	text := fmt.Sprintf("The player's last %d message(s), sent from %s UTC on, reached the assistant only now "+
		"(WhatsApp was unreachable). Answer them once, briefly, in one message, and apologise for the delay.",
		h.n, h.oldest.UTC().Format("2 Jan 15:04"))
	id := "backlog-" + h.last
	return botgw.Inbound{Chat: k, Kind: botgw.KindEvent, ID: id, At: now,
		Event: &botgw.Event{ID: id, Key: "whatsapp-backlog", Text: text, Respond: true}}
}
