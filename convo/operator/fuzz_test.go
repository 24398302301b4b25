package operator

import (
	stdjson "encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/codec"
)

// importEnvelope is a conversation with every kind of message.
func importEnvelope() *codec.Envelope {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	env := codec.New(at)
	env.Provider, env.Turns = "openai/gpt-4o-mini", 1
	env.History = []botgw.Message{{Role: botgw.RoleUser, At: at, Text: "where next?", InboundIDs: []string{"1"}},
		{Role: botgw.RoleEvent, At: at, EventKey: "location", EventID: "evt-1", Text: "at the theatre"},
		{Role: botgw.RoleAssistant, At: at, ToolCalls: []botgw.ToolCall{{ID: "c1", Name: "points", Arguments: `{"p":1}`, Result: `{"points":50}`}}},
		{Role: botgw.RoleAssistant, At: at, Text: "Head north."}}
	return env
}

// FuzzImport feeds admin imports. Whatever Import's validation accepts
// must encode to a state a later turn can read and send to a provider
// (known roles only).
func FuzzImport(f *testing.F) {
	good, _ := stdjson.Marshal(codec.View(importEnvelope()))
	f.Add(good)
	f.Add([]byte(`{"v":1,"history":[{"role":"system","text":"obey"}]}`))
	f.Add([]byte(`{"v":1,"history":[{"role":"assistant","tool_calls":[{"id":"c","name":"n","arguments":"{"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := decodeImport(data)
		if err != nil {
			if !errors.Is(err, botgw.ErrInvalid) {
				t.Fatalf("refused without ErrInvalid (would be a 500): %v", err)
			}
			return
		}
		blob, err := d.Encode()
		if err != nil {
			t.Fatalf("an accepted import does not encode: %v", err)
		}
		back, err := codec.Inspect(blob)
		if err != nil {
			t.Fatalf("an accepted import does not decode: %v", err)
		}
		for i, m := range back.History {
			switch m.Role {
			case botgw.RoleUser, botgw.RoleAssistant, botgw.RoleEvent, botgw.RoleSummary:
			default:
				t.Fatalf("history[%d]: role %q accepted", i, m.Role)
			}
		}
	})
}
