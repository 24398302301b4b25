package telegram

import (
	"sync"
	"time"
)

// limiter is a token bucket per chat, kept as the theoretical arrival time
// of the next message (GCRA): a chat may receive burst messages at once,
// then one every interval.
type limiter struct {
	interval time.Duration
	burst    int

	mu   sync.Mutex
	next map[int64]time.Time // per chat: when its bucket is full again
}

// maxChats bounds the limiter's memory; idle chats are dropped past it.
const maxChats = 4096

func newLimiter(perSecond float64, burst int) *limiter {
	return &limiter{
		interval: time.Duration(float64(time.Second) / perSecond),
		burst:    burst,
		next:     make(map[int64]time.Time),
	}
}

// reserve books a message to chat at now and returns how long the caller
// must wait before sending it (0 within the burst).
func (l *limiter) reserve(chat int64, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.next) >= maxChats {
		l.forgetIdle(now)
	}
	tat := l.next[chat]
	if tat.Before(now) {
		tat = now
	}
	l.next[chat] = tat.Add(l.interval)
	return max(0, tat.Add(-time.Duration(l.burst-1)*l.interval).Sub(now))
}

// forgetIdle drops chats whose bucket is full again.
func (l *limiter) forgetIdle(now time.Time) {
	for chat, tat := range l.next {
		if !tat.After(now) {
			delete(l.next, chat)
		}
	}
}
