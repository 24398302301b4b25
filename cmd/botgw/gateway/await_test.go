package gateway

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/internal/wait"
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

// answeredOnce waits until the gateway at base sent its one reply on
// channel (sends reads what the platform's fake took), counted the
// redelivered input as a duplicate and has no turn left to run; it fails
// the test unless exactly one reply went out, and returns it.
func answeredOnce(t *testing.T, base, channel string, sends func() []channeltest.APICall) channeltest.APICall {
	t.Helper()
	wait.Eventually(t, "the reply on "+channel, func() bool { return len(sends()) > 0 })
	quiesced(t, base, fmt.Sprintf(`botgw_inbound_total{channel=%q,outcome="duplicate"} 1`, channel),
		fmt.Sprintf(`botgw_deliveries_total{channel=%q,result="ok"} 1`, channel))
	sent := sends()
	if len(sent) != 1 {
		t.Fatalf("%d replies on %s, want 1 (the redelivery is a duplicate)", len(sent), channel)
	}
	return sent[0]
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
