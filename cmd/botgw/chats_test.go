package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/botgw/botgw/cmd/botgw/gateway"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/state/redistest"
)

// realRedisConfig is a gateway config on the test Redis under a fresh key
// prefix (removed when the test ends), written to a file for the CLI.
func realRedisConfig(t *testing.T) (gateway.Config, string) {
	t.Helper()
	url := redistest.URL(t)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	prefix := redistest.Prefix(t, url)
	path := e2e.WriteFile(t, fmt.Sprintf(`redis:
  url: %q
  key_prefix: %q
provider:
  kind: fake
channels:
  web: {}
events:
  secret: ev-secret
admin:
  token: admin-secret
`, url, prefix))
	cfg, err := gateway.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, path
}

// chats runs `botgw chats ARGS -config path` with stdin and returns stdout.
func chats(t *testing.T, path string, stdin io.Reader, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	err := cmdChats(context.Background(), append(args, "-config", path), stdin, &out, &errOut)
	return out.String(), err
}

func mustChats(t *testing.T, path string, stdin io.Reader, args ...string) string {
	t.Helper()
	out, err := chats(t, path, stdin, args...)
	if err != nil {
		t.Fatalf("botgw chats %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func TestChatsCLIShowsAndRestoresAConversation(t *testing.T) {
	_, path := realRedisConfig(t)
	base := serveCLI(t, path)
	status, _ := e2e.PostJSON(t, base+"/v1/events", `{"chat":"web:bob","text":"User is at Harrogate Theatre","key":"location","id":"e1"}`,
		"Authorization", "Bearer ev-secret")
	if status != 202 {
		t.Fatalf("event: %d", status)
	}
	for _, text := range []string{"my name is Bob", "I like theatres"} {
		if status, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:bob","text":"`+text+`"}`); status != 200 {
			t.Fatalf("chat: %d %v", status, v)
		}
	}
	if out := mustChats(t, path, nil, "list"); !strings.Contains(out, "web:bob") {
		t.Errorf("chats list = %q, want web:bob", out)
	}
	out := mustChats(t, path, nil, "show", "web:bob")
	for _, want := range []string{"web:bob  turns 2", "event[location] User is at Harrogate Theatre", "user       my name is Bob", "assistant  Demo reply"} {
		if !strings.Contains(out, want) {
			t.Errorf("chats show lacks %q:\n%s", want, out)
		}
	}
	var v operator.ChatView
	if err := json.Unmarshal([]byte(mustChats(t, path, nil, "show", "web:bob", "-json")), &v); err != nil {
		t.Fatalf("chats show -json does not parse: %v", err)
	}
	if v.Chat != "web:bob" || v.Turns != 2 || len(v.History) != 5 || len(v.Events) != 1 {
		t.Errorf("-json: chat %q turns %d, %d messages, %d events; want web:bob, 2, 5, 1", v.Chat, v.Turns, len(v.History), len(v.Events))
	}
	exportResetImport(t, path)
	want := []string{"cli import web:bob ok", "cli reset web:bob ok"} // newest first
	if got := auditActions(t, base); !slices.Equal(got, want) {
		t.Errorf("audit log seen by the gateway = %q, want %q", got, want)
	}
	_, reply := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:bob","text":"who am I?"}`)
	if r := reply["reply"].(string); !strings.Contains(r, "3 messages") || !strings.Contains(r, "my name is Bob") {
		t.Errorf("reply after import = %q: the conversation was not restored", r)
	}
}

// exportResetImport backs up web:bob, resets it, and restores it from the
// backup, checking the store at each step.
func exportResetImport(t *testing.T, path string) {
	t.Helper()
	backup := mustChats(t, path, nil, "export", "web:bob")
	if !json.Valid([]byte(backup)) {
		t.Fatalf("chats export is not JSON: %q", backup)
	}
	if out := mustChats(t, path, nil, "reset", "web:bob"); out != "reset web:bob\n" {
		t.Errorf("chats reset = %q", out)
	}
	if _, err := chats(t, path, nil, "show", "web:bob"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("chats show after reset: %v, want not found", err)
	}
	if out := mustChats(t, path, strings.NewReader(backup), "import", "web:bob"); out != "imported web:bob\n" {
		t.Errorf("chats import = %q", out)
	}
	if again := mustChats(t, path, nil, "export", "web:bob"); again != backup {
		t.Errorf("export after import differs:\n%s\nwant\n%s", again, backup)
	}
	if restored := mustChats(t, path, nil, "show", "web:bob", "-json"); !strings.Contains(restored, `"turns": 2`) {
		t.Errorf("restored chat: %s", restored)
	}
}

// auditActions reads the gateway's audit log over the admin API.
func auditActions(t *testing.T, base string) []string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/admin/audit", nil)
	req.Header.Set("Authorization", "Bearer admin-secret")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var entries []audit.Entry
	if err := json.NewDecoder(res.Body).Decode(&entries); err != nil {
		t.Fatalf("audit: %v", err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Actor+" "+e.Action+" "+e.Target+" "+e.Result)
	}
	return out
}

func TestChatsCLIRefusesTheEmbeddedStore(t *testing.T) {
	path := e2e.WriteFile(t, "provider:\n  kind: fake\nchannels:\n  web: {}\n")
	_, err := chats(t, path, nil, "list")
	if err == nil || !strings.Contains(err.Error(), "redis.url") {
		t.Errorf("chats list on the embedded store: %v, want an error naming redis.url", err)
	}
}

func TestChatsCLIRefusesAChannelNotConfigured(t *testing.T) {
	_, path := realRedisConfig(t)
	for _, cmd := range []string{"show", "reset", "export", "import"} {
		var out, errOut bytes.Buffer
		err := run(t.Context(), []string{"chats", cmd, "foo:1", "-config", path}, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), "not configured") {
			t.Errorf("chats %s foo:1: %v, want a refusal naming the channel", cmd, err)
		}
	}
}
