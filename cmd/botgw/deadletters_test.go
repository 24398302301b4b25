package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/state"
)

// TestDeadLettersCommandLine: list, retry and discard from a terminal, on
// the gateway's Redis; both actions audited as "cli".
func TestDeadLettersCommandLine(t *testing.T) {
	cfg, path := realRedisConfig(t)
	ctx := context.Background()
	st, err := state.Open(ctx, cfg.Redis, cfg.storeOptions(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reply := botgw.Outbound{Chat: botgw.ChatKey{Channel: "web", ID: "alice"}, ID: "re-1", Text: "The ferry leaves at 8."}
	var ids []string
	for _, reason := range []string{"refused by the platform: chat not found", "still failing after 5 delivery rounds"} {
		id, err := st.AddDeadLetter(ctx, botgw.DeadLetter{Chat: "web:alice", Kind: "reply", Reason: reason, Attempts: 1, Text: reply.Text, Reply: &reply})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	cli := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(ctx, append(append([]string{"dead-letters"}, args...), "-config", path), &out, &errOut)
		return out.String() + errOut.String(), err
	}
	out, err := cli("list")
	if err != nil || !strings.Contains(out, ids[0]) || !strings.Contains(out, "chat not found") || !strings.Contains(out, "The ferry leaves at 8.") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	if out, err := cli("retry", ids[0]); err != nil || !strings.Contains(out, "retried") {
		t.Errorf("retry: %v %s", err, out)
	}
	if out, err := cli("discard", ids[1]); err != nil || !strings.Contains(out, "discarded") {
		t.Errorf("discard: %v %s", err, out)
	}
	if _, err := cli("discard", ids[1]); err == nil || !strings.Contains(err.Error(), "no dead letter") {
		t.Errorf("discarding it again: %v, want no dead letter", err)
	}
	if out, _ := cli("list"); strings.Contains(out, ids[0]) || strings.Contains(out, ids[1]) {
		t.Errorf("list after retry and discard:\n%s", out)
	}
	info, err := st.Info(ctx, reply.Chat)
	if err != nil || info.Pending != 1 {
		t.Errorf("the retried reply is not queued in its chat: %+v %v", info, err)
	}
	entries, _ := audit.NewLog(st.AuditStream()).Recent(ctx, 5)
	if len(entries) != 3 || entries[1].Actor != "cli" || entries[2].Action != "dead-letter retry" {
		t.Errorf("audit = %+v", entries)
	}
}
