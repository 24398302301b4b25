package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/botgw/botgw/cmd/botgw/eval"
)

// TestEvalRecordsFromTheStreamsKafkaTopic: `eval record -from-kafka`
// reads the conversation stream's topic (records keyed by conversation,
// as the Kafka sink writes them) and records the one chat asked for.
func TestEvalRecordsFromTheStreamsKafkaTopic(t *testing.T) {
	c := kfake.MustCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "botgw.conversations"))
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("botgw.conversations"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, rec := range []struct{ conv, json string }{
		{"telegram:777123", `{"version":"1","conversation_id":"telegram:777123","seq":1,"agent_id":"app","action":"event","timestamp":"2026-11-25T16:40:00.000Z","text":"Team Red"}`},
		{"telegram:888", `{"version":"1","conversation_id":"telegram:888","seq":1,"agent_id":"user:888","action":"message","timestamp":"2026-11-25T16:40:00.500Z","text":"someone else"}`},
		{"telegram:777123", `{"version":"1","conversation_id":"telegram:777123","seq":2,"agent_id":"user:555666","action":"message","timestamp":"2026-11-25T16:40:01.000Z","text":"I'm at the bridge"}`},
		{"telegram:777123", `{"version":"1","conversation_id":"telegram:777123","seq":3,"agent_id":"botgw","action":"reply","timestamp":"2026-11-25T16:40:02.000Z","text":"Look under it."}`},
	} {
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Key: []byte(rec.conv), Value: []byte(rec.json)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	args := []string{"eval", "record", "-from-kafka", strings.Join(c.ListenAddrs(), ","), "botgw.conversations", "telegram:777123"}
	if err := run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("record: %v\n%s", err, errOut.String())
	}
	suites, err := eval.Load([]string{writeSuite(t, t.TempDir(), "s.yaml", out.String())})
	if err != nil {
		t.Fatalf("the recorded suite does not load: %v\n%s", err, out.String())
	}
	if n := len(suites[0].Conversations); n != 1 {
		t.Fatalf("%d conversations recorded, want the one chat asked for:\n%s", n, out.String())
	}
	steps := suites[0].Conversations[0].Steps
	if len(steps) != 2 || steps[0].Text != "Team Red" || steps[1].Text != "I'm at the bridge" || steps[1].Baseline != "Look under it." {
		t.Errorf("recorded steps: %+v\n%s", steps, out.String())
	}
}
