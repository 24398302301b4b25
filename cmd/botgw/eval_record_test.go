package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botgw/botgw/cmd/botgw/eval"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/providers/providertest"
)

func TestEvalRecordsAStoredChatThatReplaysWithItsBaselines(t *testing.T) {
	_, path := realRedisConfig(t)
	base := serveCLI(t, path)
	if status := e2e.Post(base+"/v1/events", "application/json", `{"chat":"web:bob-4411","text":"The player joined team Red","key":"team"}`,
		"Authorization", "Bearer ev-secret"); status != 202 {
		t.Fatalf("event: %d", status)
	}
	var stored []string
	for _, text := range []string{"hello, I'm bob-4411", "where next?"} {
		b, _ := json.Marshal(map[string]string{"chat": "web:bob-4411", "text": text})
		status, v := e2e.PostJSON(t, base+"/v1/chat", string(b))
		reply, _ := v["reply"].(string)
		if status != 200 || reply == "" {
			t.Fatalf("chat %q: %d %v", text, status, v)
		}
		stored = append(stored, reply)
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"eval", "record", "web:bob-4411", "-config", path}, &out, &errOut); err != nil {
		t.Fatalf("record: %v\n%s", err, errOut.String())
	}
	recorded := out.String()
	if strings.Contains(recorded, "bob-4411") || !strings.Contains(recorded, "hello, I'm PLAYER") ||
		!strings.Contains(recorded, "event:") || !strings.Contains(recorded, "key: team") {
		t.Errorf("recorded suite:\n%s", recorded)
	}
	dir := t.TempDir()
	suite := writeSuite(t, dir, "recorded.yaml", recorded)
	model := providertest.NewOpenAI(t, providertest.Echo())
	report := filepath.Join(dir, "r.json")
	if o, e, code := evalRun(t, "-config", evalConfig(t, model, ""), "-json", report, suite); code != 0 {
		t.Fatalf("replay: exit %d\n%s%s", code, o, e)
	}
	steps := readJSON(t, report).Conversations[0].Steps
	if len(steps) != 3 || steps[0].Kind != eval.StepEvent || steps[1].Baseline != scrubbed(stored[0]) || steps[2].Baseline != scrubbed(stored[1]) ||
		steps[2].Reply != "You said: where next?" {
		t.Errorf("replayed steps: %+v\nstored replies: %q", steps, stored)
	}
}

// scrubbed is a stored reply as a recording writes it: the chat's id replaced.
func scrubbed(s string) string { return strings.ReplaceAll(s, "bob-4411", "PLAYER") }

func TestEvalRecordsTheConversationStream(t *testing.T) {
	dir := t.TempDir()
	records := filepath.Join(dir, "stream.jsonl")
	os.WriteFile(records, []byte(`{"version":"1","conversation_id":"telegram:777123","seq":1,"agent_id":"app","action":"event","timestamp":"2026-11-25T16:40:00.000Z","text":"Team Red"}
{"records":[{"version":"1","conversation_id":"telegram:777123","seq":2,"agent_id":"user:555666","action":"location","timestamp":"2026-11-25T16:40:01.000Z","location":{"latitude":53.99212,"longitude":-1.54181}},
 {"version":"1","conversation_id":"telegram:777123","seq":3,"agent_id":"botgw","action":"reply","timestamp":"2026-11-25T16:40:02.000Z","text":"Nice spot."}]}
{"version":"1","conversation_id":"telegram:777123","seq":4,"agent_id":"user:555666","action":"message","timestamp":"2026-11-25T16:40:03.000Z","text":"call me on +44 7700 900123, I'm 555666"}
{"version":"1","conversation_id":"telegram:777123","seq":5,"agent_id":"botgw","action":"reply","timestamp":"2026-11-25T16:40:04.000Z","text":"Will do."}
`), 0o600)
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"eval", "record", "-from-stream", records}, &out, &errOut); err != nil {
		t.Fatalf("record: %v\n%s", err, errOut.String())
	}
	suites, err := eval.Load([]string{writeSuite(t, dir, "s.yaml", out.String())})
	if err != nil {
		t.Fatalf("the recorded suite does not load: %v\n%s", err, out.String())
	}
	steps := suites[0].Conversations[0].Steps
	if len(steps) != 3 || steps[0].Text != "Team Red" || steps[1].Location.Latitude != 53.99212 || steps[1].Baseline != "Nice spot." ||
		steps[2].Text != "call me on +10000000000, I'm PLAYER" || steps[2].Baseline != "Will do." {
		t.Errorf("recorded steps: %+v\n%s", steps, out.String())
	}
}

// readJSON reads the -json report back.
func readJSON(t *testing.T, file string) eval.Report {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rep eval.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("JSON report: %v\n%s", err, b)
	}
	return rep
}
