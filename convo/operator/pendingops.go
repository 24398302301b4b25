package operator

import (
	"time"

	"github.com/botgw/botgw"
)

// applyOps shows the operator actions a chat's pending list still holds
// (botgw.ChatInfo.Ops) as the turn that takes them will apply them (the
// engine's applyOperator): an operator reads a pause, a resume or a message of
// theirs as soon as its request succeeded, before any turn ran.
func (v *ChatView) applyOps(ops []botgw.Inbound, now time.Time) {
	for _, in := range ops {
		switch in.Op.Action {
		case botgw.OpPause:
			v.PausedUntil, v.PausedBy = "", ""
			if now.Before(in.Op.Until) {
				v.PausedUntil, v.PausedBy = in.Op.Until.UTC().Format(time.RFC3339), in.Op.Operator
			}
		case botgw.OpResume:
			v.PausedUntil, v.PausedBy = "", ""
		case botgw.OpMessage:
			v.History = append(v.History, botgw.Message{Role: botgw.RoleAssistant,
				Text: in.Text, At: in.At, Operator: in.Op.Operator})
		}
	}
}
