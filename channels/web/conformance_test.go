package web

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/channels/markup"
)

const session = "s-4f9a2c1d"

func TestConformance(t *testing.T) {
	page := "the web page has only its visitor's private chat"
	oneReply := "a reply is one message of any length, handed to the waiting request"
	channeltest.Run(t, channeltest.Harness{
		UserID:  session,
		Dialect: markup.Plain,
		Lacks: map[string]string{
			channeltest.CaseGroupMention: page, channeltest.CaseGroupNoMention: page, channeltest.CaseThreadReply: page,
			channeltest.CaseEditIgnored:     "the page cannot edit a message",
			channeltest.CaseReactionIgnored: "the page has no reactions",
			channeltest.CaseOwnIgnored:      "the bot's replies never come back as input",
			channeltest.CaseMedia:           "the page sends text only",
			channeltest.CaseUserName:        "visitors are anonymous",
			channeltest.CaseLongReply:       oneReply, channeltest.CaseResume: oneReply,
			channeltest.CaseTemporary: oneReply, channeltest.CaseRateLimited: oneReply, channeltest.CasePermanent: oneReply,
			channeltest.CaseTyping: "the page shows its own “…thinking” while the request waits",
		},
		New: func(t *testing.T) channeltest.Platform {
			return &platform{a: New(Config{ReplyTimeout: time.Millisecond}, Site{Loopback: true}, slog.New(slog.DiscardHandler))}
		},
	})
}

// platform is the adapter with the page's requests made directly.
type platform struct {
	a       *Adapter
	mu      sync.Mutex
	sent    []string
	offered [][]string
}

func (p *platform) Channel() botgw.Channel { return p.a }

func (p *platform) Receive(t *testing.T, m channeltest.Message, deliver botgw.Deliver) {
	body := `{"chat":"web:` + session + `","text":` + strconv.Quote(m.Text) + `,"id":"m` + strconv.Itoa(m.Seq) + `"}`
	if code, v := do(t, p.a.ChatHandler(deliver), http.MethodPost, "/v1/chat", body); code != http.StatusAccepted {
		t.Fatalf("POST /v1/chat answered %d %v, want 202 (no reply yet)", code, v)
	}
}

func (p *platform) Key(channeltest.Message) botgw.ChatKey {
	return botgw.ChatKey{Channel: Name, ID: session}
}

// Sent is what the page got by polling for replies (GET /v1/chat).
func (p *platform) Sent() []string {
	p.poll()
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.sent...)
}

// Offered is the choices of each reply polled.
func (p *platform) Offered() [][]string {
	p.poll()
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]string(nil), p.offered...)
}

func (p *platform) poll() {
	w := httptest.NewRecorder()
	p.a.ChatHandler(nil).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/chat?chat=web:"+session, nil))
	var res chatResponse
	_ = json.Unmarshal(w.Body.Bytes(), &res)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range res.Replies {
		p.sent = append(p.sent, r.Text)
		p.offered = append(p.offered, r.Choices)
	}
}

// Tap is the page's button: the label posted as the text.
func (p *platform) Tap(t *testing.T, n, i, seq int, deliver botgw.Deliver) {
	label := p.Offered()[n][i]
	body := `{"chat":"web:` + session + `","text":` + strconv.Quote(label) + `,"id":"tap` + strconv.Itoa(seq) + `"}`
	if code, v := do(t, p.a.ChatHandler(deliver), http.MethodPost, "/v1/chat", body); code != http.StatusAccepted {
		t.Fatalf("POST /v1/chat answered %d %v, want 202 (no reply yet)", code, v)
	}
}

func (p *platform) Fail(channeltest.Failure, int) {}

func (p *platform) Typing() int { return 0 }
