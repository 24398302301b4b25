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
	N      int       `json:"n"`
	Oldest time.Time `json:"oldest"`
	Last   string    `json:"last"` // id of the newest old message
}

// backlog arms the flush of the chats holding old messages, which are
// kept in Redis (shared.backlog) so a replica taking the session over
// answers what the previous one stored. Safe for concurrent use.
type backlog struct {
	mu    sync.Mutex
	timer *time.Timer
}

// arm flushes the backlog backlogQuiet from now, unless more comes.
func (b *backlog) arm(flush func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer != nil {
		b.timer.Stop()
	}
	b.timer = time.AfterFunc(backlogQuiet, flush)
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
// chat needs no summary. A failure to record only costs the summary (the
// messages are stored and the chat's next message gets them answered).
func (a *Adapter) noteStored(ctx context.Context, in botgw.Inbound) {
	if a.cfg.backlogMode() != BacklogSummarize {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, a.tm.storeTimeout)
	defer cancel()
	if err := a.shared.noteBacklog(ctx, in); err != nil {
		a.log.Warn("whatsapp backlog not recorded; the chat's next message gets it answered", "chat", in.Chat, "err", err)
		return
	}
	if in.Backlog {
		a.backlog.arm(func() { a.flushBacklog(context.WithoutCancel(ctx)) })
	}
}

// armStoredBacklog arms the flush when a previous session (on this or
// another replica) left chats waiting for their reply.
func (a *Adapter) armStoredBacklog(ctx context.Context) {
	if a.cfg.backlogMode() != BacklogSummarize {
		return
	}
	n, err := a.shared.backlogChats(ctx)
	if err != nil {
		a.log.Warn("whatsapp stored backlog unreadable", "err", err)
	}
	if n > 0 {
		a.backlog.arm(func() { a.flushBacklog(context.WithoutCancel(ctx)) })
	}
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
	chats, err := a.shared.takeBacklog(ctx)
	if err != nil {
		a.log.Error("whatsapp backlog unreadable; each chat's next message gets it answered", "err", err)
		return
	}
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
		h.N, h.Oldest.UTC().Format("2 Jan 15:04"))
	id := "backlog-" + h.Last
	return botgw.Inbound{Chat: k, Kind: botgw.KindEvent, ID: id, At: now,
		Event: &botgw.Event{ID: id, Key: "whatsapp-backlog", Text: text, Respond: true}}
}
