package botgw

import (
	"sync"
	"time"
)

// SendPace is one chat's own send limit, kept with the chat instead of in a
// shared limiter: the engine fills it from the chat's state when it takes
// the chat's lease and stores it back when the turn finishes, so a reply to
// a chat that only this lease holder sends to costs no round trip to a
// shared limiter. It holds a GCRA's theoretical arrival time of the chat's
// next send; the limiter (state/ratelimit, Limit.Take) moves it. An adapter
// uses it (Outbound.Pace) only for a chat whose platform chat no other chat
// key shares (a Telegram private chat, not a forum topic). Safe for
// concurrent use.
type SendPace struct {
	mu    sync.Mutex
	next  time.Time
	taken bool
}

// NewSendPace starts from next, the chat's stored theoretical arrival time
// (zero: the chat has sent nothing lately).
func NewSendPace(next time.Time) *SendPace { return &SendPace{next: next} }

// Advance takes a slot: f gets the stored theoretical arrival time and
// returns the next one, under the pace's lock.
func (p *SendPace) Advance(f func(next time.Time) time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next, p.taken = f(p.next), true
}

// Next is the theoretical arrival time to store, and whether any slot was
// taken since NewSendPace.
func (p *SendPace) Next() (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.next, p.taken
}
