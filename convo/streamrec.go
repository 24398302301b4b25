package convo

import (
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/streamrec"
)

// A turn's conversation-stream records (CONTRACT.md, "Conversation
// stream") are gathered in its batch as the turn changes the conversation,
// in that order, and committed with the state (botgw.Commit.Records). The
// store keeps them; the relay numbers and sends them. convo/streamrec
// builds them.

// record adds one record of chat k to the turn's.
func (b *batch) record(k botgw.ChatKey, agent, action, text string, at time.Time) {
	b.recs = append(b.recs, streamrec.New(k, agent, action, text, at))
}
