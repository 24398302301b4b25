package providertest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/botgw/botgw"
)

var toolCases = []suiteCase{
	{"tools/offered-and-called", toolsCalled},
	{"tools/results-sent-back", toolResults},
}

var (
	locationCall = botgw.ToolCall{ID: "call_abc", Name: "get_location", Arguments: `{"player":"p1"}`}
	timeCall     = botgw.ToolCall{ID: "call_def", Name: "get_time", Arguments: `{}`}
)

// The tools on offer are declared with their schemas (an empty object for
// a tool without parameters), and the model's calls come back in order,
// with or without text beside them.
func toolsCalled(t *testing.T, h Harness) {
	for _, text := range []string{"Let me check.", ""} {
		e := start(t, h, Always(h.Wire.ToolUse(text, locationCall, timeCall)))
		reply, err := e.complete(t, botgw.Request{
			Messages: []botgw.Message{user("where am I?")},
			Tools: []botgw.ToolSpec{
				{Name: "get_location", Description: "Where the player is",
					Parameters: json.RawMessage(`{"type":"object","properties":{"player":{"type":"string"}},"required":["player"]}`)},
				{Name: "get_time"},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if reply.Text != text || !slices.EqualFunc(reply.ToolCalls, []botgw.ToolCall{locationCall, timeCall}, sameCall) {
			t.Errorf("reply = %q with calls %+v, want %q with %+v", reply.Text, reply.ToolCalls, text, []botgw.ToolCall{locationCall, timeCall})
		}
		want := []Tool{
			{Name: "get_location", Description: "Where the player is",
				Parameters: `{"properties":{"player":{"type":"string"}},"required":["player"],"type":"object"}`},
			{Name: "get_time", Parameters: `{"properties":{},"type":"object"}`},
		}
		if got := e.only(t).Tools; !slices.Equal(got, want) {
			t.Errorf("tools declared = %+v, want %+v", got, want)
		}
	}
}

// sameCall compares calls by ID, name and arguments (as JSON values).
func sameCall(a, b botgw.ToolCall) bool {
	return a.ID == b.ID && a.Name == b.Name && Canonical([]byte(a.Arguments)) == Canonical([]byte(b.Arguments))
}

// An assistant message with calls goes back as the calls, then each
// result under its call's ID: a failed call's as {"error": ...}.
func toolResults(t *testing.T, h Harness) {
	e := start(t, h, Always(h.Wire.Text("You are at the theatre; the clock is down.", Usage{Input: 120, Output: 11})))
	loc, tm := locationCall, timeCall
	loc.Result, tm.Error = `{"place":"Harrogate Theatre"}`, "clock service down"
	_, err := e.complete(t, botgw.Request{Messages: []botgw.Message{
		user("where am I and what time is it?"),
		{Role: botgw.RoleAssistant, Text: "Checking.", ToolCalls: []botgw.ToolCall{loc, tm}},
		{Role: botgw.RoleEvent, Text: "User earned 50 points"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	assertParts(t, e.only(t).Parts,
		TextPart("user", "where am I and what time is it?"),
		TextPart("assistant", "Checking."),
		Part{Role: "assistant", CallID: "call_abc", Name: "get_location", Args: `{"player":"p1"}`},
		Part{Role: "assistant", CallID: "call_def", Name: "get_time", Args: `{}`},
		Part{Role: "tool", CallID: "call_abc", Text: `{"place":"Harrogate Theatre"}`},
		Part{Role: "tool", CallID: "call_def", Text: `{"error":"clock service down"}`},
		TextPart("user", "[App event] User earned 50 points"))
}
