package streamrec

import (
	"time"

	"github.com/botgw/botgw"
)

// User is the record of the player's input in: a message, or a location
// when it shares a position (at).
func User(in botgw.Inbound, text string, at *botgw.Location) botgw.StreamRecord {
	if at == nil {
		return New(in.Chat, UserAgent(in), botgw.ActionMessage, text, in.At)
	}
	r := New(in.Chat, UserAgent(in), botgw.ActionLocation, text, in.At)
	r.Location = &botgw.StreamLocation{Latitude: at.Latitude, Longitude: at.Longitude}
	return r
}

// UserAgent is the agent id of the player who sent in.
func UserAgent(in botgw.Inbound) string { return "user:" + in.UserID }

// Operator is the record of the operator action in on chat k; false for
// an action that changes nothing (a redelivered reply) or no action.
func Operator(k botgw.ChatKey, in botgw.Inbound) (botgw.StreamRecord, bool) {
	op := in.Op
	if op == nil {
		return botgw.StreamRecord{}, false
	}
	text := ""
	switch op.Action {
	case botgw.OpPause:
		text = "paused until " + op.Until.UTC().Format(time.RFC3339)
	case botgw.OpResume:
		text = "resumed"
	case botgw.OpMessage:
		text = in.Text
	default:
		return botgw.StreamRecord{}, false
	}
	return New(k, OperatorAgent(op.Operator), botgw.ActionOperator, text, in.At), true
}

// Model is the records of what the model added to chat k: each tool call
// and its result, then its reply.
func Model(k botgw.ChatKey, added []botgw.Message) []botgw.StreamRecord {
	var recs []botgw.StreamRecord
	for _, m := range added {
		for _, c := range m.ToolCalls {
			invoke := New(k, botgw.AgentAssistant, botgw.ActionToolInvoke, c.Arguments, m.At)
			result := c.Result
			if c.Error != "" {
				result = c.Error
			}
			done := New(k, botgw.AgentTool, botgw.ActionToolResult, result, m.At)
			invoke.Tool, done.Tool = c.Name, c.Name
			recs = append(recs, invoke, done)
		}
		if m.Role == botgw.RoleAssistant && m.Text != "" && len(m.ToolCalls) == 0 {
			recs = append(recs, New(k, botgw.AgentAssistant, botgw.ActionReply, m.Text, m.At))
		}
	}
	return recs
}
