package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/botgw/botgw"
)

const typingEvery = 4 * time.Second // Telegram shows "typing" for about 5 s

// StartTyping shows "typing…" in the chat of in, renewed every 4 s, until
// stop is called or ctx ends. Each signal is sent from a timer's goroutine,
// so nothing waits between signals: a turn waiting on the model holds no
// goroutine or ticker for its typing. stop waits for a signal in flight,
// so none follows the reply.
//
// When the webhook's answer to in already showed "typing" (answerTyping)
// and no message went to the chat since, the first signal is the renewal
// due typingEvery after that answer: a turn that ends sooner calls no API
// for its typing.
func (a *adapter) StartTyping(ctx context.Context, in botgw.Inbound) (stop func()) {
	t, err := parseTarget(in.Chat)
	if err != nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &typingSignal{a: a, ctx: ctx, to: t}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = time.AfterFunc(a.firstSignal(t, in, time.Now()), s.send)
	return func() {
		cancel()
		s.mu.Lock() // waits for a signal in flight
		defer s.mu.Unlock()
		s.next.Stop()
	}
}

// firstSignal is how long after now the first typing signal for in is
// due: at once, unless the webhook's answer to in showed "typing" less
// than typingEvery ago and no message to t was sent since (a message ends
// the platform's "typing"), when it is due typingEvery after that answer.
// A message counts from the moment its request leaves: one already on its
// way when the answer was written is taken to have reached Telegram first,
// as a reply the player read before writing again has.
func (a *adapter) firstSignal(t target, in botgw.Inbound, now time.Time) time.Duration {
	ms, err := strconv.ParseInt(in.Meta[metaTypingShown], 10, 64)
	if err != nil {
		return 0
	}
	shown := time.UnixMilli(ms)
	if a.sends.since(t, shown) {
		return 0
	}
	return min(max(shown.Add(typingEvery).Sub(now), 0), typingEvery)
}

// answerTyping writes the webhook's answer to an update for t that starts
// a turn: Telegram runs the method an answer names, so the answer shows
// "typing" at once without a call of the gateway's own. Its result is
// never known; firstSignal renews it.
func answerTyping(w http.ResponseWriter, t target) {
	writeMethod(w, struct {
		Method string `json:"method"`
		bot.SendChatActionParams
	}{"sendChatAction", bot.SendChatActionParams{ChatID: t.chat, MessageThreadID: t.thread, Action: models.ChatActionTyping}})
}

// writeMethod writes a webhook's 200 whose body is a Bot API call
// (its "method" and parameters), which Telegram makes.
func writeMethod(w http.ResponseWriter, call any) {
	body, err := json.Marshal(call)
	if err != nil { // a struct of numbers and strings always encodes
		w.WriteHeader(http.StatusOK)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// recentSends remembers when this replica last began sending a message to
// each chat, hashed into a fixed table: a chat sharing a slot only makes
// since true more often, which shows "typing" once more than needed and
// never less.
type recentSends [1 << 16]atomic.Int64

func (r *recentSends) slot(t target) *atomic.Int64 {
	h := (uint64(t.chat)*31 + uint64(t.thread)) * 0x9e3779b97f4a7c15
	return &r[h>>48]
}

// note records a send to t that began at at.
func (r *recentSends) note(t target, at time.Time) {
	s, v := r.slot(t), at.UnixNano()
	for old := s.Load(); v > old && !s.CompareAndSwap(old, v); old = s.Load() {
	}
}

// since reports whether a send to t began at or after at.
func (r *recentSends) since(t target, at time.Time) bool {
	return r.slot(t).Load() >= at.UnixNano()
}

// typingSignal is one turn's typing indicator.
type typingSignal struct {
	a   *adapter
	ctx context.Context // ends when the turn stops typing
	to  target

	mu   sync.Mutex  // held while a signal is sent
	next *time.Timer // sends the next signal
}

// send sends one signal and sets the next one typingEvery later.
func (s *typingSignal) send() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return
	}
	if err := s.a.sendTyping(s.ctx, s.to); err != nil && s.ctx.Err() == nil {
		s.a.log.Debug("telegram typing", "chat", s.to.key, "err", err)
	}
	if s.ctx.Err() == nil {
		s.next.Reset(typingEvery)
	}
}

// sendTyping calls sendChatAction with the action "typing" for t.
func (a *adapter) sendTyping(ctx context.Context, t target) error {
	_, err := a.bot.SendChatAction(ctx, &bot.SendChatActionParams{ChatID: t.chat, MessageThreadID: t.thread, Action: models.ChatActionTyping})
	if err != nil {
		return fmt.Errorf("telegram sendChatAction: %w", err)
	}
	return nil
}
