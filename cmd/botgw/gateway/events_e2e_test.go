package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/internal/e2e"
	"github.com/botgw/botgw/internal/wait"
)

const (
	eventsSecret = "ev-secret-e2e"
	opsToken     = "ops-token-e2e"
)

func eventsGateway(t *testing.T) string {
	t.Helper()
	cfg := demoConfig(t)
	cfg.Events.Secret = eventsSecret
	cfg.Admin.Token = opsToken
	return startGateway(t, cfg)
}

// postSignedEvent sends body to /v1/events signed as CONTRACT.md says: hex
// HMAC-SHA256 of "<timestamp>.<body>" keyed with events.secret.
func postSignedEvent(t *testing.T, base, body string) int {
	t.Helper()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(eventsSecret))
	mac.Write([]byte(ts + "." + body))
	status, _ := e2e.PostJSON(t, base+"/v1/events", body,
		"X-Botgw-Timestamp", ts, "X-Botgw-Signature", "v1="+hex.EncodeToString(mac.Sum(nil)))
	return status
}

// postEvent sends body to /v1/events with the Bearer secret.
func postEvent(t *testing.T, base, body string) int {
	t.Helper()
	status, _ := e2e.PostJSON(t, base+"/v1/events", body, "Authorization", "Bearer "+eventsSecret)
	return status
}

func TestAppEventsReachTheNextTurnOverHTTP(t *testing.T) {
	base := eventsGateway(t)
	for _, body := range []string{
		`{"chat":"web:dave","text":"User is at the station","id":"e1","key":"location"}`,
		`{"chat":"web:dave","text":"User is at the station","id":"e1","key":"location"}`,
	} {
		if status := postEvent(t, base, body); status != 202 {
			t.Fatalf("event: %d, want 202", status)
		}
	}
	signed := `{"chat":"web:dave","text":"User has just visited Harrogate Theatre","id":"e2","key":"location"}`
	if status := postSignedEvent(t, base, signed); status != 202 {
		t.Fatalf("signed event: %d, want 202", status)
	}
	if status := postEvent(t, base, `{"chat":"web:dave","text":"User earned 50 points","id":"e3"}`); status != 202 {
		t.Fatalf("third event: %d", status)
	}
	if status, _ := e2e.PostJSON(t, base+"/v1/events", `{"chat":"web:dave","text":"no auth","id":"e4"}`); status != 401 {
		t.Errorf("unauthenticated event: %d, want 401", status)
	}
	_, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:dave","text":"where am I?"}`)
	if reply := v["reply"].(string); !strings.Contains(reply, "Latest app event") || !strings.Contains(reply, "where am I?") {
		t.Errorf("reply = %q, want the event and the user text in the turn", reply)
	}
	var got []string
	for _, m := range showChat(t, base, "web:dave").History {
		got = append(got, string(m.Role)+": "+m.Text)
	}
	want := []string{"event: User has just visited Harrogate Theatre", "event: User earned 50 points", "user: where am I?"}
	if len(got) != 4 || strings.Join(got[:3], "|") != strings.Join(want, "|") {
		t.Errorf("stored history = %q, want %q then the reply (one location event, no duplicate, nothing unauthenticated)", got, want)
	}
}

func showChat(t *testing.T, base, chat string) operator.ChatView {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/admin/chats/"+strings.ReplaceAll(chat, ":", "%3A"), nil)
	req.Header.Set("Authorization", "Bearer "+opsToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v operator.ChatView
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil || res.StatusCode != 200 {
		t.Fatalf("show %s: %s %v", chat, res.Status, err)
	}
	return v
}

func TestRespondingEventDeliversOneReplyToTheWebChat(t *testing.T) {
	base := eventsGateway(t)
	body := `{"chat":"web:carol","text":"User reached Harrogate Theatre","id":"arrive-1","key":"location","respond":true}`
	if status := postEvent(t, base, body); status != 202 {
		t.Fatalf("event: %d", status)
	}
	if status := postEvent(t, base, body); status != 202 { // a retry of the same event
		t.Fatalf("retried event: %d", status)
	}
	var first []string
	wait.Eventually(t, "the announcement", func() bool { first = pollWeb(t, base, "web:carol").Messages; return len(first) > 0 })
	if len(first) != 1 || !strings.Contains(first[0], "Harrogate Theatre") {
		t.Fatalf("announcement = %q, want one reply naming the event", first)
	}
	// A user turn after it runs only once the event's turn and delivery are
	// done, so a duplicate announcement would be waiting by then.
	if status, v := e2e.PostJSON(t, base+"/v1/chat", `{"chat":"web:carol","text":"thanks"}`); status != 200 {
		t.Fatalf("chat: %d %v", status, v)
	}
	if extra := pollWeb(t, base, "web:carol").Messages; len(extra) != 0 {
		t.Errorf("more announcements arrived: %q, want exactly one", extra)
	}
}

// webPoll is what GET /v1/chat?chat= hands the page: the replies kept
// for it since its last poll, as text and with their choices.
type webPoll struct {
	Messages []string `json:"messages"`
	Replies  []struct {
		Choices []string `json:"choices"`
	} `json:"replies"`
}

// pollWeb takes the replies the web chat kept for the page.
func pollWeb(t *testing.T, base, chat string) webPoll {
	t.Helper()
	res, err := http.Get(base + "/v1/chat?chat=" + chat)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v webPoll
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// offers are the choices of each reply.
func (p webPoll) offers() [][]string {
	var out [][]string
	for _, r := range p.Replies {
		out = append(out, r.Choices)
	}
	return out
}
