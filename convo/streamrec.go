package convo

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/botgw/botgw"
)

// A turn's conversation-stream records (CONTRACT.md, "Conversation
// stream") are gathered in its batch as the turn changes the conversation,
// in that order, and committed with the state (botgw.Commit.Records). The
// store numbers them; the relay sends them.

// record adds one record of chat k to the turn's.
func (b *batch) record(k botgw.ChatKey, agent, action, text string, at time.Time) {
	b.recs = append(b.recs, botgw.StreamRecord{Version: botgw.StreamVersion, ConversationID: k.String(),
		AgentID: agent, Action: action, Timestamp: botgw.Millis(at), Text: text})
}

// userAgent is the agent id of the player who sent in.
func userAgent(in botgw.Inbound) string { return "user:" + in.UserID }

// operatorAgent is the agent id of an operator action's author: the admin
// request's operator name ("admin-api (name)"), "operator" without one, the
// user id of an in-chat operator ("telegram:123").
func operatorAgent(who string) string {
	switch {
	case who == "" || who == "admin-api":
		return "operator"
	case strings.HasPrefix(who, "admin-api (") && strings.HasSuffix(who, ")"):
		return "operator:" + strings.TrimSuffix(strings.TrimPrefix(who, "admin-api ("), ")")
	}
	if _, id, ok := strings.Cut(who, ":"); ok {
		return "operator:" + id
	}
	return "operator:" + who
}

// recordOperator adds the record of an operator action.
func (b *batch) recordOperator(k botgw.ChatKey, in botgw.Inbound) {
	op := in.Op
	text := ""
	switch op.Action {
	case botgw.OpPause:
		text = "paused until " + op.Until.UTC().Format(time.RFC3339)
	case botgw.OpResume:
		text = "resumed"
	case botgw.OpMessage:
		text = in.Text
	default:
		return // a redelivered reply changes nothing
	}
	b.record(k, operatorAgent(op.Operator), botgw.ActionOperator, text, in.At)
}

// recordModel adds the records of what the model added: each tool call and
// its result, then its reply.
func (b *batch) recordModel(k botgw.ChatKey, added []botgw.Message) {
	for _, m := range added {
		for _, c := range m.ToolCalls {
			b.record(k, botgw.AgentAssistant, botgw.ActionToolInvoke, c.Arguments, m.At)
			b.recs[len(b.recs)-1].Tool = c.Name
			result := c.Result
			if c.Error != "" {
				result = c.Error
			}
			b.record(k, botgw.AgentTool, botgw.ActionToolResult, result, m.At)
			b.recs[len(b.recs)-1].Tool = c.Name
		}
		if m.Role == botgw.RoleAssistant && m.Text != "" && len(m.ToolCalls) == 0 {
			b.record(k, botgw.AgentAssistant, botgw.ActionReply, m.Text, m.At)
		}
	}
}

// resetRecorded forgets chat k's conversation under its lease, so the
// reset is committed with its stream record (by agent); a chat whose turn
// is running is reset without one (logged) rather than refused.
func resetRecorded(ctx context.Context, st botgw.Store, k botgw.ChatKey, agent string, log *slog.Logger) error {
	snap, err := st.Begin(ctx, k, "")
	if errors.Is(err, botgw.ErrBusy) {
		if log != nil {
			log.Warn("reset while a turn runs: the stream gets no reset record", "chat", k)
		}
		return st.Reset(ctx, k)
	}
	if err != nil {
		return err
	}
	defer st.Release(context.WithoutCancel(ctx), k, snap.Lease)
	rec := botgw.StreamRecord{Version: botgw.StreamVersion, ConversationID: k.String(), AgentID: agent,
		Action: botgw.ActionReset, Timestamp: botgw.Millis(time.Now())}
	return st.Commit(ctx, k, botgw.Commit{Lease: snap.Lease, Version: snap.Version, Records: []botgw.StreamRecord{rec}})
}
