package convo

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/convo/codec"
	"github.com/botgw/botgw/convo/streamrec"
)

// command is one in-chat command. Commands never reach the LLM and never
// enter the history. Own runs on the sender's chat; Other, when set, runs
// on another chat named as the first argument and needs an operator; it
// gets the words after the chat (rest) and who asked (actor).
type command struct {
	Name  string
	Help  string
	Own   func(ctx context.Context, e *Engine, v *chatView) (reply string, reset bool)
	Other func(ctx context.Context, e *Engine, target botgw.ChatKey, rest, actor string) string
}

// chatView is what a command sees of its own chat during a turn.
type chatView struct {
	chat botgw.ChatKey
	env  *codec.Envelope
	size int
	ttl  time.Duration
	// operator is set while a command of an operator runs (/status shows
	// them a takeover).
	operator bool
}

// commandTable lists the in-chat commands; the engine keeps it (cmdHelp
// reads it back through the engine, which a package-level table could not).
func commandTable() []command {
	return []command{
		{Name: "reset", Help: "forget this conversation (operators: /reset <chat>)", Own: cmdReset, Other: cmdResetOther},
		{Name: "status", Help: "turns, stored size, tokens used and time to expiry (operators: /status <chat>)", Own: cmdStatus, Other: cmdStatusOther},
		{Name: "pause", Help: "operators: /pause <chat> [duration]: take a chat over (the assistant stops answering)", Own: cmdTakeoverUsage, Other: cmdPause},
		{Name: "resume", Help: "operators: /resume <chat>: hand a chat back to the assistant", Own: cmdTakeoverUsage, Other: cmdResume},
		{Name: "help", Help: "list the commands", Own: cmdHelp},
	}
}

// command is the in-chat command in names, if any. A tap is the player's
// words, never a command (docs/choices.md): a choice labelled "/reset",
// tapped, or a web chat's or WhatsApp's answer the engine matched to a
// choice, is text for the model.
func (e *Engine) command(in botgw.Inbound) (*command, string, bool) {
	if in.Tap != nil {
		return nil, "", false
	}
	return e.parseCommand(in.Text)
}

// parseCommand recognises "/name args" for a known name ("/Reset" and
// Telegram's "/reset@MyBot" included). Unknown slash words are plain text.
func (e *Engine) parseCommand(text string) (*command, string, bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return nil, "", false
	}
	word, args, _ := strings.Cut(text[1:], " ")
	word, _, _ = strings.Cut(word, "@")
	i := slices.IndexFunc(e.commands, func(c command) bool { return strings.EqualFold(c.Name, word) })
	if i < 0 {
		return nil, "", false
	}
	return &e.commands[i], strings.TrimSpace(args), true
}

// runCommand checks permissions and usage, runs the command and audits
// what operators do and what is refused.
func (e *Engine) runCommand(ctx context.Context, v *chatView, in botgw.Inbound, c *command, args string, log *slog.Logger) (string, bool) {
	v.operator = e.isOperator(in)
	targetArg, rest, _ := strings.Cut(args, " ")
	if args == "" || targetArg == v.chat.String() {
		reply, reset := c.Own(ctx, e, v)
		if reset {
			audit.Write(ctx, e.deps.Audit, log, audit.Entry{Actor: actor(in), Action: "reset", Target: v.chat.String(), Result: "ok"})
		}
		return reply, reset
	}
	if c.Other == nil {
		return fmt.Sprintf("/%s takes no argument.", c.Name), false
	}
	entry := audit.Entry{Actor: actor(in), Action: c.Name, Target: targetArg, Detail: strings.TrimSpace(rest)}
	if !v.operator {
		entry.Result = "refused: not an operator"
		audit.Write(ctx, e.deps.Audit, log, entry)
		return fmt.Sprintf("Sorry, only operators can use /%s on another chat.", c.Name), false
	}
	target, err := botgw.ParseChatKey(targetArg)
	if err != nil {
		return fmt.Sprintf("Usage: /%s <chat>, e.g. /%s telegram:123456789", c.Name, c.Name), false
	}
	reply := c.Other(ctx, e, target, strings.TrimSpace(rest), actor(in))
	entry.Result = reply
	audit.Write(ctx, e.deps.Audit, log, entry)
	return reply, false
}

func (e *Engine) isOperator(in botgw.Inbound) bool {
	return in.UserID != "" && slices.Contains(e.cfg.Operators[in.Chat.Channel], in.UserID)
}

func actor(in botgw.Inbound) string { return in.Chat.Channel + ":" + in.UserID }

func cmdReset(_ context.Context, e *Engine, v *chatView) (string, bool) {
	fresh := codec.New(e.now())
	fresh.Processed = v.env.Processed
	fresh.Today, fresh.TodayTokens = v.env.Today, v.env.TodayTokens       // a reset is no way round the daily limit
	fresh.PausedUntil, fresh.PausedBy = v.env.PausedUntil, v.env.PausedBy // nor round an operator's takeover
	v.env = fresh
	return "Done: I've forgotten our conversation. Let's start again!", true
}

func cmdResetOther(ctx context.Context, e *Engine, target botgw.ChatKey, _, who string) string {
	if err := streamrec.Reset(ctx, e.deps.Store, target, streamrec.OperatorAgent(who), e.deps.Log); err != nil {
		return fmt.Sprintf("Could not reset %s: %v", target, err)
	}
	return fmt.Sprintf("Reset %s: its next message starts a new conversation.", target)
}

func cmdStatus(_ context.Context, e *Engine, v *chatView) (string, bool) {
	s := codec.Status(v.env, v.size, v.ttl)
	if v.operator {
		s += codec.PauseStatus(v.env, e.now())
	}
	return s, false
}

func cmdStatusOther(ctx context.Context, e *Engine, target botgw.ChatKey, _, _ string) string {
	info, err := e.deps.Store.Info(ctx, target)
	if err != nil {
		return fmt.Sprintf("No conversation found for %s.", target)
	}
	env, err := codec.Decode(info.Blob, nil)
	if err != nil || env == nil {
		return fmt.Sprintf("%s has no readable conversation (%d pending).", target, info.Pending)
	}
	return target.String() + ": " + codec.Status(env, len(info.Blob), info.TTL) + codec.PauseStatus(env, e.now())
}

func cmdHelp(_ context.Context, e *Engine, _ *chatView) (string, bool) {
	var b strings.Builder
	b.WriteString("Commands:")
	for _, c := range e.commands {
		fmt.Fprintf(&b, "\n/%s: %s", c.Name, c.Help)
	}
	return b.String(), false
}
