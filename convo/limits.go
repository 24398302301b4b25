package convo

import (
	"context"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/codec"
	"github.com/botgw/botgw/convo/limits"
)

const (
	outcomeDailyLimit = codec.OutcomeDailyLimit
	outcomeThrottled  = "throttled"
)

// overDailyLimit answers a turn past the chat's daily tokens without the
// model: the user's message is kept, the reply is the notice (none for an
// event that asked for a reply: nobody spoke).
func (e *Engine) overDailyLimit(env *codec.Envelope, b batch, stats *TurnStats) (string, bool) {
	now := e.now()
	if e.cfg.Limits.DailyTokens <= 0 || env.TokensToday(now) < e.cfg.Limits.DailyTokens {
		return "", false
	}
	if b.user != nil {
		env.History = append(env.History, *b.user)
	}
	env.AddRecord(codec.Record{ID: b.last.ID, At: now, Outcome: outcomeDailyLimit})
	stats.Outcome = outcomeDailyLimit
	if !b.asked {
		return "", true
	}
	return e.cfg.Limits.DailyNotice, true
}

// throttle says how long the chat must wait before its next model turn:
// zero when pending holds nothing for the model or the window allows it.
// It reads the state from *decoded when the caller has it decoded already;
// else the state it decodes is left there for the turn, which so does not
// decompress and decode the blob a second time.
func (e *Engine) throttle(snap botgw.Snapshot, decoded **codec.Envelope) time.Duration {
	if e.cfg.Limits.TurnsPerMinute <= 0 {
		return 0
	}
	env := *decoded
	if env == nil {
		var err error
		if env, err = codec.Decode(snap.Blob, e.cfg.AcceptProviders); err != nil || env == nil {
			return 0 // no readable state: no turns to count (the turn logs why)
		}
		*decoded = env
	}
	if !e.needsModel(env, snap.Pending) {
		return 0
	}
	now := e.now()
	var recent []time.Time
	for _, r := range env.Records {
		if r.Outcome != outcomeDailyLimit && now.Sub(r.At) < limits.Window {
			recent = append(recent, r.At)
		}
	}
	return e.cfg.Limits.Wait(recent, now)
}

// needsModel reports whether pending holds new input the model answers:
// text that is not a command, or an event asking for a reply.
func (e *Engine) needsModel(env *codec.Envelope, pending []botgw.Inbound) bool {
	for _, in := range pending {
		if in.ID != "" && env.Seen(in.ID) {
			continue
		}
		switch in.Kind {
		case botgw.KindEvent:
			if in.Event != nil && in.Event.Respond {
				return true
			}
		case botgw.KindText, "":
			if _, _, cmd := e.command(in); !cmd && !in.Backlog {
				return true
			}
		}
	}
	return false
}

// pause waits out a throttled or debounced chat. The lease stays held (and
// renewed), so no other worker takes the chat meanwhile, and a crash only
// hands it over after the lease expires.
func (e *Engine) pause(ctx context.Context, d time.Duration) {
	done := make(chan struct{})
	stop := e.clock.AfterFunc(d, func() { close(done) })
	defer stop()
	select {
	case <-ctx.Done():
	case <-done:
	}
}
