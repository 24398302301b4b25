package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw/channels/web"
	"github.com/botgw/botgw/internal/wait"
	"github.com/botgw/botgw/providers/providertest"
	"github.com/botgw/botgw/state/redistest"
)

// heldModel is an OpenAI-compatible model that answers each request when
// hold lets it (nil: at once). It counts the requests in flight and the
// peak, remembers each request's last user text and arrival, and notices
// the requests the gateway cancelled.
type heldModel struct {
	api  *providertest.OpenAI
	hold func(ctx context.Context, n int) bool // false: the caller went away first

	mu        sync.Mutex
	inFlight  int
	peak      int
	asked     []string
	arrived   []time.Time
	cancelled []string
	open      bool          // set by a test to let held answers go
	changed   chan struct{} // closed and replaced on every change
}

func newHeldModel(t *testing.T, hold func(m *heldModel, ctx context.Context, n int) bool) *heldModel {
	t.Helper()
	m := &heldModel{changed: make(chan struct{})}
	if hold != nil {
		m.hold = func(ctx context.Context, n int) bool { return hold(m, ctx, n) }
	}
	m.api = providertest.NewOpenAI(t, m.respond)
	return m
}

func (m *heldModel) respond(_ int, w http.ResponseWriter, r *http.Request) {
	var req oaRequest
	_ = json.NewDecoder(r.Body).Decode(&req)
	text := ""
	for _, msg := range req.Messages {
		if s, ok := msg.Content.(string); ok && msg.Role == "user" {
			text = s
		}
	}
	m.update(func() {
		m.asked, m.arrived = append(m.asked, text), append(m.arrived, time.Now())
		m.inFlight++
		m.peak = max(m.peak, m.inFlight)
	})
	n := len(m.Asked()) - 1
	defer m.update(func() { m.inFlight-- })
	if m.hold != nil && !m.hold(r.Context(), n) {
		m.update(func() { m.cancelled = append(m.cancelled, text) })
		return
	}
	providertest.Completion("you said: " + text).Write(w)
}

func (m *heldModel) update(f func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f()
	close(m.changed)
	m.changed = make(chan struct{})
}

// until waits for cond (checked under the lock) or ctx; false if ctx ended.
func (m *heldModel) until(ctx context.Context, cond func() bool) bool {
	for {
		m.mu.Lock()
		ok, changed := cond(), m.changed
		m.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-changed:
		}
	}
}

// await is until for the test goroutine, failing after d.
func (m *heldModel) await(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if !m.until(ctx, cond) {
		t.Fatalf("the model did not see %s within %s", what, d)
	}
}

func (m *heldModel) Asked() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.asked...)
}

// chatAsync posts one web chat message and reports the reply (or why not).
func chatAsync(base, chat, text string, out chan<- string) {
	b, _ := json.Marshal(map[string]string{"chat": chat, "text": text})
	res, err := http.Post(base+"/v1/chat", "application/json", bytes.NewReader(b))
	if err != nil {
		out <- "error: " + err.Error()
		return
	}
	defer res.Body.Close()
	var v struct{ Reply string }
	_ = json.NewDecoder(res.Body).Decode(&v)
	out <- fmt.Sprintf("%d %s", res.StatusCode, v.Reply)
}

func TestAllChatsWritingAtOnceAreAtTheModelTogether(t *testing.T) {
	const chats = 150
	// A slow model: each answer waits until the test opens it once every
	// chat's request has arrived (at most 30 s), so a gateway that queues
	// some of them behind a fixed pool never gets there.
	model := newHeldModel(t, func(m *heldModel, ctx context.Context, _ int) bool {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		m.until(ctx, func() bool { return m.open })
		return true
	})
	cfg := llmConfig(openAIAt(model.api, 0))
	cfg.Channels.Web = &web.Config{ReplyTimeout: 60 * time.Second, PerClientPerMinute: 10 * chats} // every chat from one address
	base := startGateway(t, cfg)
	replies := make(chan string, chats)
	for i := range chats {
		go chatAsync(base, fmt.Sprintf("web:player-%03d", i), fmt.Sprintf("hello %d", i), replies)
	}
	model.await(t, 25*time.Second, "every chat at once", func() bool { return model.peak >= chats })
	if m := scrape(t, base); !strings.Contains(m, `botgw_provider_calls_in_flight{provider="openai/gpt-4o-mini"} 150`) {
		t.Errorf("/metrics does not show the 150 calls in flight:\n%s", grepLines(m, "botgw_provider_calls"))
	}
	model.update(func() { model.open = true })
	for range chats {
		if r := <-replies; !strings.HasPrefix(r, "200 you said: hello") {
			t.Fatalf("a chat got %q, want its answer", r)
		}
	}
	model.mu.Lock()
	peak := model.peak
	model.mu.Unlock()
	if peak != chats {
		t.Errorf("at most %d requests were at the model at once, want all %d", peak, chats)
	}
}

func TestNewInputInterruptsTheModelCallAndOneReplyAnswersBoth(t *testing.T) {
	// The first call answers only if nobody cancels it within 20 s.
	model := newHeldModel(t, func(m *heldModel, ctx context.Context, n int) bool {
		if n > 0 {
			return true
		}
		wait, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		<-wait.Done()
		return ctx.Err() == nil
	})
	api := newBotAPI(t)
	pc := openAIAt(model.api, 0)
	pc.Timeout = time.Minute
	cfg := llmConfig(pc)
	cfg.Channels.Web = nil
	cfg.Channels.Telegram = &telegramConfig{Token: e2eBotToken, WebhookSecret: faultSecret, APIURL: api.URL,
		RatePerSecond: 1000, Burst: 100}
	cfg.Turns.OnNewInput = "interrupt"
	base := startGateway(t, cfg)

	if s := postUpdate(base, tgText(42, 1, "hi")); s != 200 {
		t.Fatalf("first update: %d", s)
	}
	model.await(t, 10*time.Second, "the first message", func() bool { return len(model.asked) == 1 })
	if s := postUpdate(base, tgText(42, 2, "I'm at the station")); s != 200 {
		t.Fatalf("second update: %d", s)
	}
	model.await(t, 10*time.Second, "the rerun", func() bool { return len(model.asked) == 2 })
	wait.Eventually(t, "the condition", func() bool { return len(api.CallsTo("sendMessage")) > 0 })
	model.mu.Lock()
	cancelled, asked := model.cancelled, model.asked
	model.mu.Unlock()
	if len(cancelled) != 1 || cancelled[0] != "hi" {
		t.Errorf("the model saw %q cancelled, want the first call (hi)", cancelled)
	}
	if asked[1] != "hi\nI'm at the station" {
		t.Errorf("the rerun asked %q, want both messages", asked[1])
	}
	sent := api.CallsTo("sendMessage")
	if len(sent) != 1 || !strings.Contains(sent[0].Params["text"], "station") {
		t.Errorf("sent %v, want one reply answering both messages", sent)
	}
}

func TestRequestsPerMinuteIsSharedByReplicas(t *testing.T) {
	url := redistest.URL(t)
	model := newHeldModel(t, nil)
	pc := openAIAt(model.api, 0)
	pc.RequestsPerMinute = 60 // a burst of 60, then one a second
	cfg := llmConfig(pc)
	cfg.Redis.URL, cfg.Redis.KeyPrefix = url, "botgwtest-rpm-"+fmt.Sprint(time.Now().UnixNano())
	t.Cleanup(func() { redistest.Drop(t, url, cfg.Redis.KeyPrefix) }) // runs after both replicas stopped
	replicas := []string{startGateway(t, cfg), startGateway(t, cfg)}
	const chats = 64 // 32 on each replica: each alone would let them all through at once
	replies := make(chan string, chats)
	for i := range chats {
		go chatAsync(replicas[i%2], fmt.Sprintf("web:rpm-%02d", i), fmt.Sprint("hello ", i), replies)
	}
	for range chats {
		if r := <-replies; !strings.HasPrefix(r, "200 you said: hello") {
			t.Fatalf("a chat got %q, want its answer (the limit waits, it does not refuse)", r)
		}
	}
	model.mu.Lock()
	arrived := append([]time.Time(nil), model.arrived...)
	model.mu.Unlock()
	if len(arrived) != chats {
		t.Fatalf("the model saw %d requests, want %d", len(arrived), chats)
	}
	first := arrived[0]
	inFirstSecond := 0
	for _, a := range arrived {
		if a.Sub(first) < time.Second {
			inFirstSecond++
		}
	}
	if inFirstSecond > 61 {
		t.Errorf("the model saw %d requests in the first second, want at most the burst of 60 (+1)", inFirstSecond)
	}
	if span := arrived[len(arrived)-1].Sub(first); span < 3*time.Second {
		t.Errorf("64 requests reached the model within %s; at 60 a minute shared the last 4 wait a second each", span)
	}
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
