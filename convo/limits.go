package convo

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/codec"
)

// Limits protect against abuse and runaway cost, per chat. Zero fields are
// off.
type Limits struct {
	// DailyTokens caps the input+output tokens a chat may use per UTC day.
	// Past it, a turn stores the user's message and answers DailyNotice
	// without calling the model. The check is made before each turn, so the
	// turn that crosses the cap still completes.
	DailyTokens int
	// TurnsPerMinute caps the model turns a chat may start in any minute
	// (at most 50, the turn records kept). A flood is not dropped and not
	// refused: the next turn waits until the window allows it, and all
	// input that arrived meanwhile is answered together as one turn.
	TurnsPerMinute int
	// DailyNotice is the reply past DailyTokens.
	DailyNotice string
	// MaxInputChars caps one input's text, in characters, for every
	// channel: longer text is cut to it before it is stored or sent to the
	// model, and the user gets CutNotice. Default 8000.
	MaxInputChars int
	// CutNotice tells the user their message was cut; "{max}" stands for
	// MaxInputChars.
	CutNotice string
}

// DefaultMaxInputChars is limits.max_input_chars when unset.
const DefaultMaxInputChars = 8000

const (
	outcomeDailyLimit = codec.OutcomeDailyLimit
	outcomeThrottled  = "throttled"
	throttleWindow    = time.Minute
)

func (l Limits) withDefaults() Limits {
	if l.DailyNotice == "" {
		l.DailyNotice = "You've chatted a lot today! I need a rest: come back tomorrow and we'll carry on."
	}
	l.TurnsPerMinute = min(l.TurnsPerMinute, codec.MaxRecords)
	if l.MaxInputChars <= 0 {
		l.MaxInputChars = DefaultMaxInputChars
	}
	if l.CutNotice == "" {
		l.CutNotice = "(Your message was too long: I read only its first {max} characters.)"
	}
	l.CutNotice = strings.ReplaceAll(l.CutNotice, "{max}", strconv.Itoa(l.MaxInputChars))
	return l
}

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
	limit := e.cfg.Limits.TurnsPerMinute
	if limit <= 0 {
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
		if r.Outcome != outcomeDailyLimit && now.Sub(r.At) < throttleWindow {
			recent = append(recent, r.At)
		}
	}
	if len(recent) < limit {
		return 0
	}
	return recent[len(recent)-limit].Add(throttleWindow).Sub(now)
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
			if _, _, cmd := e.parseCommand(in.Text); !cmd && !in.Backlog {
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
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// cut shortens input longer than MaxInputChars to it (at a character
// boundary) and marks it, so the turn can tell the user.
func (l Limits) cut(in botgw.Inbound) botgw.Inbound {
	if c, ok := cutText(in.Text, l.MaxInputChars); ok {
		in.Text, in.Cut = c, true
	}
	if in.Event != nil {
		if c, ok := cutText(in.Event.Text, l.MaxInputChars); ok {
			ev := *in.Event
			ev.Text, in.Event, in.Cut = c, &ev, true
		}
	}
	return in
}

// cutText is s cut to max characters, and whether it had to be cut.
func cutText(s string, max int) (string, bool) {
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}
