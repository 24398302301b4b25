package gateway

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/syncbuf"
)

// dockerCmd is the image's default command line (the Dockerfile's CMD).
func dockerCmd(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "CMD "); ok {
			var args []string
			if err := json.Unmarshal([]byte(rest), &args); err != nil {
				t.Fatalf("Dockerfile CMD %q: %v", rest, err)
			}
			return args
		}
	}
	t.Fatal("Dockerfile has no CMD")
	return nil
}

// The image's default command, with no config, must not Serve an open web
// chat to the network, and must say why at start.
func TestDockerDefaultCommandServesNoOpenWebChat(t *testing.T) {
	args := dockerCmd(t)
	port := freePort(t)[len("127.0.0.1:"):]
	for i, a := range args {
		if strings.HasPrefix(a, "0.0.0.0:") {
			args[i] = "0.0.0.0:" + port
		}
	}
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), "BOTGW_CONFIG=", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=")
	var p process
	var out syncbuf.Buffer
	p.run(t, cmd, &out)
	t.Cleanup(func() {
		p.terminate(t, "gateway", os.Interrupt, 30*time.Second)
		if t.Failed() {
			t.Logf("gateway output:\n%s", out.String())
		}
	})
	base := "http://127.0.0.1:" + port
	e2e.AwaitHealthy(t, base, "the image's default command")
	res, err := http.Post(base+"/v1/chat", "application/json", strings.NewReader(`{"chat":"web:a","text":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("POST /v1/chat on the image's default command: %d, want 404 (web chat off)", res.StatusCode)
	}
	if !strings.Contains(out.String(), "web chat off") {
		t.Errorf("the gateway did not say the web chat is off:\n%s", out.String())
	}
}

func TestCrossOriginChatIsRefusedAndNothingStored(t *testing.T) {
	base := startGateway(t, demoConfig(t))
	status, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:victim","text":"spend tokens"}`, "Origin", "https://evil.example")
	if status != http.StatusForbidden || !strings.HasPrefix(v["error"].(string), "origin") {
		t.Fatalf("cross-origin POST: %d %v, want 403 naming origin", status, v)
	}
	status, v = e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:victim","text":"hello"}`, "Origin", base)
	if status != 200 {
		t.Fatalf("same-origin POST: %d %v", status, v)
	}
	if reply := v["reply"].(string); strings.Contains(reply, "spend tokens") || !strings.Contains(reply, "first message") {
		t.Errorf("the refused message reached the conversation: %q", reply)
	}
	status, _ = e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:curl","text":"hi"}`) // the README's curl tour
	if status != 200 {
		t.Errorf("curl on loopback: %d", status)
	}
}

func TestChatPageHasTheAdminPagesSecurityHeaders(t *testing.T) {
	base := startGateway(t, DefaultConfig())
	for path, ctype := range map[string]string{"/": "text/html", "/chat.js": "text/javascript"} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		h := res.Header
		csp := h.Get("Content-Security-Policy")
		if res.StatusCode != 200 || !strings.HasPrefix(h.Get("Content-Type"), ctype) {
			t.Errorf("GET %s: %d %s", path, res.StatusCode, h.Get("Content-Type"))
		}
		if !strings.Contains(csp, "script-src 'self';") ||
			!strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("GET %s: nosniff %q, referrer %q", path, h.Get("X-Content-Type-Options"), h.Get("Referrer-Policy"))
		}
		if path == "/" && strings.Contains(string(b), "<script>") {
			t.Errorf("the page has inline script, which its CSP blocks")
		}
	}
}
