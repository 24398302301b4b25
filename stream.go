package botgw

import (
	"strconv"
	"time"
)

// StreamVersion is the format version every stream record carries.
const StreamVersion = "1"

// Stream record actions (CONTRACT.md, "Conversation stream").
const (
	ActionMessage    = "message"     // player text, a tap, a transcript
	ActionLocation   = "location"    // a location pin or a live-location update
	ActionReply      = "reply"       // the assistant's words, a broadcast's message
	ActionEvent      = "event"       // an app event
	ActionToolInvoke = "tool_invoke" // the model called a tool
	ActionToolResult = "tool_result" // the tool's result (or error)
	ActionOperator   = "operator"    // pause, resume, an operator's message
	ActionReset      = "reset"       // the conversation was forgotten
)

// Stream record senders that are not a user or an operator.
const (
	AgentAssistant = "botgw"
	AgentTool      = "tool"
	AgentApp       = "app"
)

// StreamLocation is a record's position in decimal degrees.
type StreamLocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// StreamRecord is one committed change of a conversation, as the
// conversation stream delivers it. The engine fills everything but Seq and
// ID; the commit stores the records, and the relay numbers a chat's
// records as it reads them (Seq 1, 2, ... with no gaps, per sink) and
// derives ID.
type StreamRecord struct {
	Version        string          `json:"version"`
	ID             string          `json:"id,omitempty"`
	ConversationID string          `json:"conversation_id"`
	Seq            int64           `json:"seq,omitempty"`
	AgentID        string          `json:"agent_id"`
	Action         string          `json:"action"`
	Timestamp      Millis          `json:"timestamp"`
	Text           string          `json:"text,omitempty"`
	Location       *StreamLocation `json:"location,omitempty"`
	// Tool names the tool of a tool_invoke or tool_result record.
	Tool string `json:"tool,omitempty"`
}

// StreamID is a record's id: "<conversation_id>#<seq>".
func StreamID(conversation string, seq int64) string {
	return conversation + "#" + strconv.FormatInt(seq, 10)
}

// Millis is a time that encodes as RFC 3339 in UTC with milliseconds
// ("2026-11-25T16:40:02.113Z").
type Millis time.Time

const millisLayout = "2006-01-02T15:04:05.000Z07:00"

func (m Millis) MarshalText() ([]byte, error) {
	return []byte(time.Time(m).UTC().Format(millisLayout)), nil
}

func (m *Millis) UnmarshalText(b []byte) error {
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return err
	}
	*m = Millis(t)
	return nil
}
