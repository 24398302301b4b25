package convo

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/choices"
	"github.com/botgw/botgw/convo/codec"
	"github.com/botgw/botgw/convo/streamrec"
)

// batch is what one turn makes of a chat's pending input.
type batch struct {
	user    *botgw.Message       // the user's messages since the last event, as one message
	asked   bool                 // the burst holds user text for the model
	last    botgw.Inbound        // the input answered: its Meta goes with the reply
	replies []string             // command answers and notices, in order
	respond bool                 // an event asked for a reply
	out     []botgw.Outbound     // operator messages and redelivered replies, in order
	tags    []string             // broadcast items the reply answers (events with respond)
	notices []string             // media notices among replies (dropped while an operator holds the chat)
	recs    []botgw.StreamRecord // the conversation stream's records (streamrec.go)
	// asks is what the events asking for a reply want it to offer; offer
	// is what the reply offers (asks, else the model's offer_choices).
	asks, offer botgw.Offer
}

// turn runs one turn over snap's pending input and returns the commit.
// It never fails: a provider error becomes an apology reply, and state that
// cannot be read becomes a fresh conversation. env is snap's state when the
// caller decoded it already, else nil; the state the commit writes is
// returned along with it.
func (e *Engine) turn(ctx context.Context, k botgw.ChatKey, snap botgw.Snapshot, env *codec.Envelope, log *slog.Logger) (botgw.Commit, TurnStats, *codec.Envelope) {
	now := e.now()
	stats := TurnStats{Channel: k.Channel, Outcome: "ok"}
	if first := snap.Pending[0].At; !first.IsZero() {
		stats.QueueWait = now.Sub(first)
	}
	if env == nil {
		env = e.load(snap.Blob, log)
	}
	view := chatView{chat: k, env: env, size: len(snap.Blob), ttl: snap.TTL}
	b := e.collect(ctx, &view, snap.Pending, log)
	env = view.env
	e.respond(ctx, k, env, &b, &stats, now, log)
	dropImages(env.History)
	env.EndExpiredPause(now)
	if !b.asked && !b.respond && b.user != nil { // backlog only: stored, not answered
		env.History = append(env.History, *b.user)
	}
	out := b.out
	if len(b.replies) > 0 {
		reply := botgw.Outbound{Chat: k, ID: "re-" + replyTo(b, snap.Pending), Text: strings.Join(b.replies, "\n\n"), Meta: b.replyMeta(),
			Proactive: b.respond && !b.asked}
		out = append(out, choices.Offered(reply, b.offer, choices.LastAssistant(env.History)))
	}
	env.Updated = now
	blob, err := codec.Encode(env)
	if err != nil { // cannot happen for our own types; keep the old state
		log.Error("encode state", "err", err)
		blob, env = snap.Blob, nil // what is committed is the old blob, not env
	}
	stats.StateSize = len(blob)
	c := botgw.Commit{Lease: snap.Lease, Version: snap.Version, Blob: blob,
		TTL: e.cfg.StateTTL, Consumed: len(snap.Pending), Activity: view.env.Activity(now), Records: b.recs}
	c.Outbox = out
	return c, stats, env
}

// replyTo is the inbound a reply is named after: the last text answered,
// or, for a turn an event asked for, the last input taken. Outbox ids stay
// distinct per turn: adapters derive platform message ids from them.
func replyTo(b batch, pending []botgw.Inbound) string {
	if b.last.ID != "" {
		return b.last.ID
	}
	return pending[len(pending)-1].ID
}

// respond settles the turn's answer: none while an operator holds the chat,
// the model's when the input asks for one.
func (e *Engine) respond(ctx context.Context, k botgw.ChatKey, env *codec.Envelope, b *batch, stats *TurnStats, now time.Time, log *slog.Logger) {
	switch {
	case env.Paused(now):
		e.holdForOperator(env, b, stats)
	case b.asked || b.respond:
		if reply := e.answer(ctx, k, env, b, stats, log); reply != "" {
			b.replies = append(b.replies, reply)
		}
	case len(b.replies) > 0:
		stats.Outcome = "command"
	default:
		stats.Outcome = "event"
	}
}

// load decodes the stored state, or starts a fresh one (logging why).
func (e *Engine) load(blob []byte, log *slog.Logger) *codec.Envelope {
	env, err := codec.Decode(blob, e.cfg.AcceptProviders)
	var drop *codec.DropError
	if errors.As(err, &drop) {
		log.Warn("stored conversation dropped; starting fresh", "reason", string(drop.Reason), "err", drop.Err)
		e.deps.Hooks.dropped(drop.Reason)
	}
	if env == nil {
		env = codec.New(e.now())
	}
	return env
}

// collect applies events and commands in arrival order and gathers the
// user's text into one message per run of text between events, so the
// model reads text and events in the order they arrived. Input already in
// the state is skipped.
func (e *Engine) collect(ctx context.Context, v *chatView, pending []botgw.Inbound, log *slog.Logger) batch {
	var b batch
	for _, in := range pending {
		if in.ID != "" && v.env.Seen(in.ID) {
			continue
		}
		v.env.MarkSeen(in.ID)
		switch in.Kind {
		case botgw.KindEvent:
			if in.Event != nil {
				b.flushUser(v.env) // earlier text stays before the event
				applyEvent(v.env, in)
				b.record(in.Chat, botgw.AgentApp, botgw.ActionEvent, in.Event.Text, in.At)
				b.respond = b.respond || in.Event.Respond
				b.event(in)
			}
		case botgw.KindSay:
			b.say(v.env, in, v.env.Paused(e.now()))
		case botgw.KindOperator:
			e.applyOperator(v, &b, in)
			if r, ok := streamrec.Operator(v.chat, in); ok {
				b.recs = append(b.recs, r)
			}
		case botgw.KindLocation:
			if in.Location != nil {
				b.applyLocation(v.env, in)
				b.recs = append(b.recs, streamrec.User(in, in.Location.String(), in.Location))
			}
		case botgw.KindUnsupported:
			if in.Backlog { // no notice for old media: the backlog's answer covers it
				continue
			}
			b.last = in
			b.replies = append(b.replies, e.cfg.UnsupportedNotice)
		default:
			if in.Media != nil {
				e.readMedia(ctx, &b, in)
				continue
			}
			if in.Location != nil {
				b.applyLocation(v.env, in)
				b.addUser(in)
				continue
			}
			var done bool
			if in, done = e.choiceInput(v, &b, in); done {
				continue
			}
			if in.Cut && !in.Backlog {
				b.last = in
				b.replies = append(b.replies, e.cfg.Limits.CutNotice)
			}
			if cmd, args, ok := e.command(in); ok {
				b.last = in
				reply, reset := e.runCommand(ctx, v, in, cmd, args, log)
				b.replies = append(b.replies, reply)
				if reset {
					b.user, b.asked, b.respond = nil, false, false
					b.record(in.Chat, streamrec.UserAgent(in), botgw.ActionReset, "", in.At)
				}
				continue
			}
			b.addUser(in)
		}
	}
	return b
}

// event notes an event that asks for a reply: the reply goes out under its
// id when no user text is answered, and carries its broadcast item.
func (b *batch) event(in botgw.Inbound) {
	if !in.Event.Respond {
		return
	}
	if !in.Event.Offer.IsZero() {
		b.asks = in.Event.Offer
	}
	if b.last.ID == "" {
		b.last = in
	}
	if tag := in.Meta[botgw.MetaBroadcast]; tag != "" {
		b.tags = append(b.tags, tag)
	}
}

// say stores a verbatim text as the assistant's message (after any user
// text before it) and queues it for delivery as it is. While an operator
// holds the chat the text is held back instead: not sent, not in the
// history (the player never saw it), kept as a dead letter.
func (b *batch) say(env *codec.Envelope, in botgw.Inbound, paused bool) {
	m := botgw.Outbound{Chat: in.Chat, ID: "say-" + in.ID, Text: in.Text, Meta: in.Meta, Proactive: true}
	if paused {
		m.Held = heldPaused
		b.out = append(b.out, choices.Offered(m, in.Offer, nil))
		return
	}
	b.flushUser(env)
	env.History = append(env.History, botgw.Message{Role: botgw.RoleAssistant, Text: in.Text, At: in.At})
	b.out = append(b.out, choices.Offered(m, in.Offer, &env.History[len(env.History)-1]))
	b.record(in.Chat, botgw.AgentApp, botgw.ActionReply, in.Text, in.At)
}

// replyMeta is the Meta of the input answered plus the broadcast items the
// reply delivers.
func (b *batch) replyMeta() map[string]string {
	if len(b.tags) == 0 {
		return b.last.Meta
	}
	m := maps.Clone(b.last.Meta)
	if m == nil {
		m = map[string]string{}
	}
	m[botgw.MetaBroadcast] = strings.Join(b.tags, " ")
	return m
}

// addUser adds text to the user's message of this turn; backlog text is
// kept without asking for a reply.
func (b *batch) addUser(in botgw.Inbound) {
	b.add(in, botgw.Message{Text: in.Text, Location: in.Location})
}

// add adds one input's content (its text, position, media) to the user's
// message of this turn; backlog input is kept without asking for a reply.
func (b *batch) add(in botgw.Inbound, m botgw.Message) {
	if b.user == nil {
		b.user = &botgw.Message{Role: botgw.RoleUser, Text: m.Text, At: in.At}
	} else {
		b.user.Text += "\n" + m.Text
	}
	if m.Location != nil {
		b.user.Location = m.Location
	}
	if m.Media != "" {
		b.user.Media = m.Media
	}
	b.user.Images = append(b.user.Images, m.Images...)
	b.user.InboundIDs = append(b.user.InboundIDs, in.ID)
	b.user.Tap = b.user.Tap || in.Tap != nil
	b.recs = append(b.recs, streamrec.User(in, m.Text, m.Location))
	if !in.Backlog {
		b.last = in
		b.asked = true
	}
}

// applyEvent appends an event as context; an event with a key replaces the
// previous one of that key, so the player's location does not pile up.
func applyEvent(env *codec.Envelope, in botgw.Inbound) {
	ev := in.Event
	if ev.Key != "" {
		env.History = slices.DeleteFunc(env.History, func(m botgw.Message) bool {
			return m.Role == botgw.RoleEvent && m.EventKey == ev.Key
		})
	}
	env.History = append(env.History, botgw.Message{Role: botgw.RoleEvent, Text: ev.Text,
		At: in.At, EventID: ev.ID, EventKey: ev.Key})
}

// answer compacts the history, runs the provider's tool loop and returns
// the reply text; what it offers (the events' choices, else the model's)
// goes in b.offer. On failure the user's message stays in the history and
// the reply is the apology, offering nothing. Past the daily token limit
// the model is not called.
func (e *Engine) answer(ctx context.Context, k botgw.ChatKey, env *codec.Envelope, b *batch, stats *TurnStats, log *slog.Logger) string {
	if notice, over := e.overDailyLimit(env, *b, stats); over {
		return notice
	}
	history := env.History // the turn owns env: appending in place copies nothing
	if b.user != nil {
		history = append(history, *b.user)
	}
	history = e.compact(ctx, env, history, stats, log)
	if t, ok := e.deps.Channels[k.Channel].(botgw.Typer); ok {
		defer startTyping(ctx, t, b.last)()
	}
	at, start := e.now(), time.Now()
	res := e.ask(ctx, k, b.last.UserID, history)
	stats.Provider = time.Since(start)
	stats.Usage, stats.ToolCalls = res.usage, res.toolCalls
	env.History = append(history, res.added...)
	b.recs = append(b.recs, streamrec.Model(k, res.added)...)
	env.AddUsage(res.usage, e.now())
	env.Turns++
	rec := codec.Record{ID: b.last.ID, At: at, Provider: res.provider, Usage: res.usage,
		ToolCalls: res.toolCalls, Duration: stats.Provider, Outcome: "ok"}
	if res.err != nil {
		log.Warn("provider failed; sending the apology", "err", res.err)
		stats.Outcome, rec.Outcome = "provider_error", "provider_error"
		if pe, ok := errors.AsType[*botgw.ProviderError](res.err); ok {
			stats.ProviderStatus = pe.Status
		}
		env.AddRecord(rec)
		b.record(k, botgw.AgentAssistant, botgw.ActionReply, e.cfg.Apology, e.now())
		return e.cfg.Apology
	}
	env.Provider = res.provider
	env.AddRecord(rec)
	system := []botgw.Message{{Role: botgw.RoleUser, Text: e.cfg.SystemPrompt}}
	env.Hint = botgw.UsageHint{Reported: res.firstInput, Estimated: e.deps.Count(system) + e.deps.Count(history)}
	b.offer = res.offer
	if !b.asks.IsZero() {
		b.offer = b.asks
	}
	return res.text
}

// compact shrinks the history with the configured compactor. A failing
// compactor leaves the history as it was: compaction never loses context.
func (e *Engine) compact(ctx context.Context, env *codec.Envelope, h []botgw.Message, stats *TurnStats, log *slog.Logger) []botgw.Message {
	if e.deps.Compactor == nil {
		return h
	}
	out, err := e.deps.Compactor.Compact(ctx, h, env.Hint)
	if err != nil {
		log.Warn("compaction failed; sending the history whole", "err", err)
		return h
	}
	if len(out) != len(h) {
		stats.Compacted = true
		env.Compaction.Count++
		env.Compaction.Last = e.now()
		env.Compaction.TokensBefore = e.deps.Count(h)
		env.Compaction.TokensAfter = e.deps.Count(out)
	}
	return out
}

// roughTokens is a cheap estimate for the compaction record.
func roughTokens(h []botgw.Message) int {
	n := 0
	for _, m := range h {
		n += (len(m.Text)+3)/4 + 4
		for _, c := range m.ToolCalls {
			n += (len(c.Arguments) + len(c.Result) + len(c.Error) + 3) / 4
		}
	}
	return n
}
