package channeltest

import "time"

// retryAfter429 is what a sendMessage past the bot-wide limit is answered.
var retryAfter429 = Reply{429, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 1","parameters":{"retry_after":1}}`}

// botLimit is a token bucket of rate sends a second holding up to burst.
type botLimit struct {
	rate, burst, tokens float64
	last                time.Time
	refused             int // 429 answers given
}

// allow takes a token at now; false when the bucket is empty.
func (l *botLimit) allow(now time.Time) bool {
	if l.last.IsZero() {
		l.tokens = l.burst
	}
	l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	l.last = now
	if l.tokens < 1 {
		l.refused++
		return false
	}
	l.tokens--
	return true
}

// BotLimit makes sendMessage enforce a bot-wide rate, as Telegram does: a
// token bucket of rate messages a second holding up to burst; a message
// past it is not taken and answered 429 with parameters.retry_after.
func (f *BotAPI) BotLimit(rate, burst float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.limit = &botLimit{rate: rate, burst: burst}
}

// Refused429 is how many sendMessage calls the bot-wide limit answered
// with 429.
func (f *BotAPI) Refused429() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.limit == nil {
		return 0
	}
	return f.limit.refused
}

// overLimit is the 429 for a sendMessage past the bot-wide limit, if any.
func (f *BotAPI) overLimit(method string) (Reply, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if method != "sendMessage" || f.limit == nil || f.limit.allow(time.Now()) {
		return Reply{}, false
	}
	return retryAfter429, true
}
