package convo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/streamrec"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state"
)

// scoreTool is a tool the model may call: it answers with a score.
type scoreTool struct{}

func (scoreTool) Specs() []botgw.ToolSpec { return []botgw.ToolSpec{{Name: "get_score"}} }
func (scoreTool) Call(context.Context, botgw.ChatKey, string, botgw.ToolCall) (string, error) {
	return `{"score":50}`, nil
}

// streamed reads the records waiting for the webhook sink of chat k.
func streamed(t *testing.T, st *state.Store, k botgw.ChatKey) []botgw.StreamRecord {
	t.Helper()
	var out []botgw.StreamRecord
	b, _, err := st.StreamNext(context.Background(), "webhook", "0", state.StreamBatch{}, 0, 1000) // a single Redis's one unit
	if err != nil {
		t.Fatal(err)
	}
	for i := range b.Raws {
		r, _, err := b.Record(i)
		if err != nil {
			t.Fatal(err)
		}
		if r.ConversationID == k.String() {
			out = append(out, r)
		}
	}
	return out
}

// recordSummary is "agent action text" per record, seq checked 1..n.
func recordSummary(t *testing.T, recs []botgw.StreamRecord) []string {
	t.Helper()
	var out []string
	for i, r := range recs {
		if r.Seq != int64(i+1) {
			t.Fatalf("record %d has seq %d: %+v", i, r.Seq, recs)
		}
		out = append(out, strings.Join(strings.Fields(r.AgentID+" "+r.Action+" "+r.Tool+" "+r.Text), " "))
	}
	return out
}

// TestTurnsRecordTheConversation runs a player's message, a tool call, an
// app event, commands and an operator's pause, and checks the records each
// committed change left for the stream, in order.
func TestTurnsRecordTheConversation(t *testing.T) {
	st := openStore(t, false, state.Options{LeaseTTL: time.Second, Stream: state.StreamOptions{Sinks: []string{"webhook"}}})
	prov := fake.New(
		fake.Step{ToolCalls: []botgw.ToolCall{{ID: "c1", Name: "get_score", Arguments: `{"team":"red"}`}}},
		fake.Step{Text: "You have 50 points."},
	)
	r := newRig(t, st, prov, Config{}, func(e *Engine) { e.deps.Tools = scoreTool{} })
	r.say(t, testChat, "m1", "what's my score?")
	r.ch.Wait(t, 1, 5*time.Second)
	ev := botgw.Inbound{Chat: testChat, Kind: botgw.KindEvent, ID: "evt:e1", At: time.Now(),
		Event: &botgw.Event{ID: "e1", Text: "The player reached the bridge"}}
	if err := r.eng.Handle(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	r.say(t, testChat, "m2", "/status")
	r.ch.Wait(t, 2, 5*time.Second)
	r.say(t, testChat, "m3", "/reset")
	r.ch.Wait(t, 3, 5*time.Second)
	until := time.Now().Add(time.Hour).Truncate(time.Second)
	if err := r.eng.act(context.Background(), testChat, botgw.OperatorAction{Action: botgw.OpPause, Operator: "admin-api (ana)", Until: until}); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, "the condition", func() bool { return len(streamed(t, st, testChat)) == 7 })
	if err := streamrec.Reset(context.Background(), st, testChat, streamrec.OperatorAgent("admin-api"), nil); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"user:u1 message what's my score?",
		`botgw tool_invoke get_score {"team":"red"}`,
		`tool tool_result get_score {"score":50}`,
		"botgw reply You have 50 points.",
		"app event The player reached the bridge",
		"user:u1 reset",
		"operator:ana operator paused until " + until.UTC().Format(time.RFC3339),
		"operator reset",
	}
	got := recordSummary(t, streamed(t, st, testChat))
	if len(got) != len(want) {
		t.Fatalf("records %q, want %q", got, want)
	}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			b, _ := json.MarshalIndent(got, "", " ")
			t.Fatalf("records:\n%s\nwant %q at %d", b, want[i], i)
		}
	}
}

// TestLocationsAreRecorded checks a pin and a live location's later
// position: each a location record with its coordinates.
func TestLocationsAreRecorded(t *testing.T) {
	st := openStore(t, false, state.Options{LeaseTTL: time.Second, Stream: state.StreamOptions{Sinks: []string{"webhook"}}})
	r := newRig(t, st, fake.New(), Config{})
	pin := &botgw.Location{Latitude: 53.99212, Longitude: -1.54181, Title: "Old bridge"}
	in := botgw.Inbound{Chat: testChat, Kind: botgw.KindText, ID: "m1", UserID: "u1", Text: pin.String(), Location: pin, At: time.Now()}
	if err := r.eng.Handle(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	r.ch.Wait(t, 1, 5*time.Second)
	live := &botgw.Location{Latitude: 53.99300, Longitude: -1.54000}
	if err := r.eng.Handle(context.Background(), botgw.Inbound{Chat: testChat, Kind: botgw.KindLocation, ID: "m1@2", UserID: "u1", Location: live, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	wait.Eventually(t, "the condition", func() bool { return len(streamed(t, st, testChat)) == 3 })
	recs := streamed(t, st, testChat)
	for i, want := range []*botgw.Location{pin, nil, live} {
		got := recs[i].Location
		switch {
		case want == nil && (got != nil || recs[i].Action != botgw.ActionReply):
			t.Fatalf("record %d = %+v, want the reply", i, recs[i])
		case want != nil && (got == nil || got.Latitude != want.Latitude || got.Longitude != want.Longitude || recs[i].Action != botgw.ActionLocation || recs[i].AgentID != "user:u1"):
			t.Fatalf("record %d = %+v, want a location at %v", i, recs[i], want)
		}
	}
}
