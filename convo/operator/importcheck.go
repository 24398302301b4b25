package operator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/codec"
)

// Limits of an imported conversation: what the engine itself could have
// written, so an import can never hold what breaks a later turn.
const (
	maxImportMessages  = 5000
	maxImportText      = 200_000 // characters of one message's text
	maxImportToolCalls = 64      // per message
	maxImportIDs       = 1000    // inbound ids per message
)

// fieldError is an import problem naming its field; it is a
// botgw.ErrInvalid.
type fieldError struct{ field, msg string }

func (e *fieldError) Error() string { return e.field + ": " + e.msg }
func (e *fieldError) Unwrap() error { return botgw.ErrInvalid }

func invalid(field, format string, args ...any) *fieldError {
	return &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
}

// decodeImport reads an export strictly (unknown fields are errors) and
// validates it.
func decodeImport(data []byte) (*codec.Decoded, error) {
	var d codec.Decoded
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, invalid("body", "not an export: %v", err)
	}
	if dec.More() {
		return nil, invalid("body", "more than one JSON value")
	}
	if err := validate(&d); err != nil {
		return nil, err
	}
	return &d, nil
}

// validate checks an export before it becomes a chat's state: the format,
// every history message's role and sizes, records and counters. Each error
// names its field ("history[3].role") and wraps botgw.ErrInvalid.
func validate(d *codec.Decoded) error {
	if d.Version != codec.FormatVersion {
		return invalid("v", "state format %d; this build reads %d", d.Version, codec.FormatVersion)
	}
	if d.Turns < 0 || d.TodayTokens < 0 || d.Usage.InputTokens < 0 || d.Usage.OutputTokens < 0 {
		return invalid("turns", "counters (turns, usage, today_tokens) must not be negative")
	}
	if len(d.Provider) > 200 {
		return invalid("provider", "longer than 200 bytes")
	}
	if len(d.Records) > codec.MaxRecords {
		return invalid("records", "more than %d", codec.MaxRecords)
	}
	if len(d.History) > maxImportMessages {
		return invalid("history", "more than %d messages", maxImportMessages)
	}
	for i, m := range d.History {
		if err := validMessage(m); err != nil {
			return &fieldError{field: fmt.Sprintf("history[%d].%s", i, err.field), msg: err.msg}
		}
	}
	return nil
}

// validMessage checks one history message; errors start with the field.
func validMessage(m botgw.Message) *fieldError {
	switch m.Role {
	case botgw.RoleUser, botgw.RoleAssistant, botgw.RoleEvent, botgw.RoleSummary:
	default:
		return invalid("role", "%q is not one of user, assistant, event, summary", m.Role)
	}
	switch {
	case !utf8.ValidString(m.Text):
		return invalid("text", "not valid UTF-8")
	case utf8.RuneCountInString(m.Text) > maxImportText:
		return invalid("text", "longer than %d characters", maxImportText)
	case len(m.ToolCalls) > maxImportToolCalls:
		return invalid("tool_calls", "more than %d", maxImportToolCalls)
	case len(m.ToolCalls) > 0 && m.Role != botgw.RoleAssistant:
		return invalid("tool_calls", "only an assistant message makes tool calls")
	case len(m.InboundIDs) > maxImportIDs:
		return invalid("inbound_ids", "more than %d", maxImportIDs)
	case len(m.EventKey) > 64 || len(m.EventID) > 200:
		return invalid("event_key", "event_key over 64 or event_id over 200 bytes")
	}
	for j, c := range m.ToolCalls {
		switch {
		case c.Name == "" || c.ID == "":
			return invalid(fmt.Sprintf("tool_calls[%d]", j), "id and name are required")
		case c.Arguments != "" && !json.Valid([]byte(c.Arguments)):
			return invalid(fmt.Sprintf("tool_calls[%d].arguments", j), "not JSON")
		}
	}
	return nil
}
