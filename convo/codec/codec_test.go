package codec

import (
	stdjson "encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/botgw/botgw"
)

// codecEnvelope has every field of the Envelope set, tool calls and events
// included, so a field the codec drops or renames shows up.
func codecEnvelope() *Envelope {
	env := benchEnvelope(12)
	env.Turns, env.Today, env.TodayTokens = 6, "2026-05-01", 900
	env.Usage = botgw.Usage{InputTokens: 800, OutputTokens: 100}
	env.Compaction = CompactionStats{Count: 1, Last: env.Created.Add(time.Hour), TokensBefore: 4000, TokensAfter: 900}
	env.Records = []Record{{ID: "m3", At: env.Created, Provider: env.Provider, ToolCalls: 1,
		Duration: 1500 * time.Millisecond, Outcome: "ok", Usage: env.Usage}}
	env.History = append(env.History, botgw.Message{Role: botgw.RoleAssistant, At: env.Created,
		ToolCalls: []botgw.ToolCall{{ID: "c1", Name: "points", Arguments: `{"player":"p1"}`, Result: `{"points":50}`}}})
	return env
}

func TestStateRoundTripsThroughTheCodec(t *testing.T) {
	want := codecEnvelope()
	blob, err := Encode(want)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	got, err := Decode(blob, nil)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decode(encode(state)) differs:\n got %+v\nwant %+v", got, want)
	}
}

// Replicas of different builds share Redis during a rolling upgrade: state
// written with encoding/json (earlier builds) must read back whole, and
// state this build writes must read with encoding/json.
func TestStateIsReadableAcrossBuildsDuringAnUpgrade(t *testing.T) {
	want := codecEnvelope()
	raw, err := stdjson.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	got, err := Decode(enc.EncodeAll(raw, nil), nil)
	if err != nil {
		t.Fatalf("Decode a blob written by encoding/json: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a blob written by encoding/json decodes to\n %+v\nwant %+v", got, want)
	}

	blob, err := Encode(want)
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := zstd.NewReader(nil)
	plain, err := dec.DecodeAll(blob, nil)
	if err != nil {
		t.Fatal(err)
	}
	var old Envelope
	if err := stdjson.Unmarshal(plain, &old); err != nil {
		t.Fatalf("encoding/json cannot read this build's state: %v", err)
	}
	if !reflect.DeepEqual(&old, want) {
		t.Errorf("encoding/json reads this build's state as\n %+v\nwant %+v", &old, want)
	}
}

// A platform can hand over text with broken UTF-8 (a cut multi-byte
// character); the turn must still commit, not fail on encoding.
func TestStateWithInvalidUTF8StillEncodes(t *testing.T) {
	env := New(time.Now().UTC())
	env.History = []botgw.Message{{Role: botgw.RoleUser, Text: "caf\xc3"}}
	blob, err := Encode(env)
	if err != nil {
		t.Fatalf("Encode text with invalid UTF-8: %v", err)
	}
	got, err := Decode(blob, nil)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if len(got.History) != 1 || got.History[0].Text == "" {
		t.Errorf("history after round trip = %+v, want the message kept", got.History)
	}
}

func TestCorruptStateIsADropNotACrash(t *testing.T) {
	enc, _ := zstd.NewWriter(nil)
	for name, blob := range map[string][]byte{
		"not zstd":     []byte("garbage"),
		"not JSON":     enc.EncodeAll([]byte("{not json"), nil),
		"wrong shapes": enc.EncodeAll([]byte(`{"v":1,"history":"nope"}`), nil),
	} {
		_, err := Decode(blob, nil)
		var drop *DropError
		if !errors.As(err, &drop) || drop.Reason != DropCorrupt {
			t.Errorf("%s: Decode = %v, want a corrupt-state drop", name, err)
		}
	}
}
