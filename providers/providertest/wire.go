package providertest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
)

// Wire is one vendor's API as the suite drives it: a fake of it, its
// answers written in its own shapes, and the requests it received read
// back neutrally, so one case checks every provider.
type Wire interface {
	// Start starts a fake of the API answering with respond. base is what
	// Config.BaseURL is set to; sent returns the requests so far.
	Start(t *testing.T, respond Respond) (base string, sent func() []Sent)
	// Text is a reply of text alone whose usage is u.
	Text(text string, u Usage) Answer
	// ToolUse is a reply asking for calls (ID, Name, Arguments), after
	// text when it is not empty.
	ToolUse(text string, calls ...botgw.ToolCall) Answer
	// Error is the API's error answer for status, with the code (or type)
	// and the message it carries.
	Error(status int) (a Answer, code, message string)
	// Busy is the status the API answers when it is overloaded.
	Busy() int
}

// Usage is what a reply costs. Input counts every prompt token, the
// cached ones included; the wire writes it the way its API splits it.
type Usage struct{ Input, Output, Cached int }

// Sent is one request a fake received, read neutrally.
type Sent struct {
	At          time.Time
	Header      http.Header
	Key         string // the API key it carried
	Model       string
	MaxTokens   int // max_tokens or max_completion_tokens; 0 when absent
	Temperature *float64
	System      string
	Parts       []Part // the messages' content, in order
	Tools       []Tool
}

// Part is one piece of a message: a text, an image, a call the
// assistant made, or a call's result, whatever role the vendor gives it.
type Part struct {
	Role  string // "user", "assistant", or "tool" for a call's result
	Text  string // a text; a result's content
	Image string // an image as a data URL: data:<mime>;base64,<bytes>
	// CallID, Name and Args are an assistant's call (Args compact JSON);
	// a result has CallID only.
	CallID, Name, Args string
}

// Tool is a tool the request offered; Parameters is its JSON schema,
// compact with sorted keys.
type Tool struct{ Name, Description, Parameters string }

// TextPart is a text part of role.
func TextPart(role, text string) Part { return Part{Role: role, Text: text} }

// Canonical is raw JSON compact with sorted keys, or raw itself when it
// is not JSON.
func Canonical(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v) // a decoded value always encodes
	return string(b)
}

// bearer is the key of an Authorization: Bearer header.
func bearer(h http.Header) string {
	return strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
}

// compact is raw JSON without insignificant space.
func compact(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
