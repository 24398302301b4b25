package convo

import (
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/streamrec"
)

// A turn's conversation-stream records (CONTRACT.md, "Conversation
// stream") are gathered in its batch as the turn changes the conversation,
// in that order, and committed with the state (botgw.Commit.Records). The
// store numbers them; the relay sends them.

// record adds one record of chat k to the turn's.
func (b *batch) record(k botgw.ChatKey, agent, action, text string, at time.Time) {
	b.recs = append(b.recs, streamrec.New(k, agent, action, text, at))
}

// recordUser adds the record of the player's input in: a message, or a
// location when it shares a position.
func (b *batch) recordUser(in botgw.Inbound, text string, at *botgw.Location) {
	if at == nil {
		b.record(in.Chat, userAgent(in), botgw.ActionMessage, text, in.At)
		return
	}
	b.record(in.Chat, userAgent(in), botgw.ActionLocation, text, in.At)
	b.recs[len(b.recs)-1].Location = &botgw.StreamLocation{Latitude: at.Latitude, Longitude: at.Longitude}
}

// userAgent is the agent id of the player who sent in.
func userAgent(in botgw.Inbound) string { return "user:" + in.UserID }

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
	b.record(k, streamrec.OperatorAgent(op.Operator), botgw.ActionOperator, text, in.At)
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
