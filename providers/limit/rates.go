package limit

import (
	"context"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/state/ratelimit"
)

// defaultPause is how long a 429 without Retry-After holds callers back.
const defaultPause = time.Second

// pauseScope is the hold a 429 sets: "<key>:pause" in Redis.
const pauseScope = "pause"

// rules are the shared limits one call passes, each charged once: the
// requests limit, then the tokens limit with the call's estimated tokens.
// Both are a burst of one minute's worth, then the steady rate.
func (p *Provider) rules(req botgw.Request) []ratelimit.Rule {
	var rules []ratelimit.Rule
	if n := p.cfg.RequestsPerMinute; n > 0 {
		rules = append(rules, ratelimit.Rule{Key: "rpm", Limit: ratelimit.PerMinute(float64(n), n)})
	}
	if n := p.cfg.TokensPerMinute; n > 0 {
		rules = append(rules, ratelimit.Rule{Key: "tpm", Limit: ratelimit.PerMinute(float64(n), n), Cost: p.charge(req)})
	}
	return rules
}

// charge is what the call costs the tokens limit: its estimated input plus
// the output of earlier calls, never more than the limit's burst (or the
// call could never pass).
func (p *Provider) charge(req botgw.Request) int {
	p.mu.Lock()
	n := estimate(req) + p.debt
	p.debt = 0
	p.mu.Unlock()
	return max(1, min(n, p.cfg.TokensPerMinute))
}

// estimate counts a request's tokens roughly (4 characters each), as the
// tokenizer of every model differs and the limit only needs the scale.
func estimate(req botgw.Request) int {
	chars := len(req.System)
	for _, m := range req.Messages {
		chars += len(m.Text) + 16
		for _, c := range m.ToolCalls {
			chars += len(c.Arguments) + len(c.Result) + len(c.Error)
		}
	}
	return chars / 4
}

// pause holds every caller back for d after a 429: on this replica at
// once, and on every replica through Redis when shared limits are on.
func (p *Provider) pause(d time.Duration) {
	if d <= 0 {
		d = defaultPause
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := p.lim.Hold(ctx, pauseScope, d); err != nil {
		p.log.Warn("share provider pause", "provider", p.next.ID(), "err", err)
	}
}
