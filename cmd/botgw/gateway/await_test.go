package gateway

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// quiesced waits until the gateway at base has recorded every line of want
// in /metrics (a series and its value, as Prometheus writes it) and has no
// chat due or in flight. Then nothing more will be sent: a test can count
// what arrived without sleeping first.
func quiesced(t *testing.T, base string, want ...string) {
	t.Helper()
	want = append(want, "botgw_work_due_chats 0")
	var body string
	deadline := time.Now().Add(15 * time.Second)
	for {
		body = metricsText(base)
		if hasAll(body, want) && noLeases(body) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gateway did not settle within 15s: /metrics lacks one of %q or holds a lease:\n%s", want, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func metricsText(base string) string {
	res, err := http.Get(base + "/metrics")
	if err != nil {
		return ""
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

func hasAll(body string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(body, w+"\n") {
			return false
		}
	}
	return true
}

// noLeases reports whether every botgw_leases_held series is 0.
func noLeases(body string) bool {
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "botgw_leases_held{") && !strings.HasSuffix(line, " 0") {
			return false
		}
	}
	return true
}
