package webhooks

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/channeltest"
	"github.com/botgw/botgw/convo"
	"github.com/botgw/botgw/convo/audit"
	"github.com/botgw/botgw/convo/operator"
	"github.com/botgw/botgw/providers/fake"
	"github.com/botgw/botgw/state"
	"github.com/botgw/botgw/state/redistest"
)

const adminToken = "s3cret-admin"

// Escaped forms of chat keys as a client puts them in a path.
const (
	waChat      = "whatsapp:447700900123@s.whatsapp.net"
	waPath      = "whatsapp%3A447700900123%40s.whatsapp.net"
	threadChat  = "slack:C1/1700000000.000100"
	threadPath  = "slack%3AC1%2F1700000000.000100"
	operatorID  = "447700900999"
	operatorKey = "whatsapp:" + operatorID + "@s.whatsapp.net"
)

// adminRig is a whole gateway minus the platforms: an engine over the
// embedded store with a fake provider and recording channels, and the HTTP
// server with the admin API over a real operator.API.
type adminRig struct {
	h     http.Handler
	eng   *convo.Engine
	prov  *fake.Provider
	sent  map[string]*channeltest.Recorder
	total int // replies expected so far
}

func newAdminRig(t *testing.T, token string, steps ...fake.Step) *adminRig {
	t.Helper()
	return newAdminRigOn(t, openStore(t, false), token, steps...)
}

// openStore opens the embedded store, or real Redis under a random key
// prefix when real is set (skipping without BOTGW_TEST_REDIS_URL).
func openStore(t *testing.T, real bool) *state.Store {
	t.Helper()
	cfg := state.Config{}
	if real {
		url := redistest.URL(t)
		cfg = state.Config{URL: url, KeyPrefix: "botgwtest-" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	}
	st, err := state.Open(context.Background(), cfg, state.Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if real {
			ctx := context.Background()
			keys, _ := st.Client().Keys(ctx, cfg.KeyPrefix+":*").Result()
			if len(keys) > 0 {
				st.Client().Del(ctx, keys...)
			}
		}
		st.Close()
	})
	return st
}

func newAdminRigOn(t *testing.T, st *state.Store, token string, steps ...fake.Step) *adminRig {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	r := &adminRig{prov: fake.New(steps...), sent: map[string]*channeltest.Recorder{}}
	chans := map[string]botgw.Channel{}
	for _, name := range []string{"whatsapp", "slack"} {
		r.sent[name] = channeltest.NewRecorder(name)
		chans[name] = r.sent[name]
	}
	trail := audit.NewLog(st.AuditStream())
	var err error
	r.eng, err = convo.New(convo.Config{StateTTL: time.Hour, PollInterval: 50 * time.Millisecond,
		Operators: map[string][]string{"whatsapp": {operatorID}}},
		convo.Deps{Store: st, Provider: r.prov, Channels: chans, Tools: venues{}, Audit: trail, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go r.eng.Run(ctx)
	t.Cleanup(func() {
		cancel()
		closeCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		_ = r.eng.Close(closeCtx)
	})
	op := &operator.API{Store: st, Trail: trail, StateTTL: time.Hour, Log: log, Deliver: r.eng.Handle}
	list := []botgw.Channel{chans["whatsapp"], chans["slack"]}
	r.h = New(Deps{Deliver: r.eng.Handle, Admin: NewAdmin(token, op, log).WithChannels(list)}).Handler()
	return r
}

// venues is a one-tool convo.Tools, so histories hold a real tool call.
type venues struct{}

func (venues) Specs() []botgw.ToolSpec { return []botgw.ToolSpec{{Name: "nearest_venue"}} }

func (venues) Call(context.Context, botgw.ChatKey, string, botgw.ToolCall) (string, error) {
	return `{"venue":"Harrogate Theatre","metres":200}`, nil
}

// say delivers a user message (from user) and waits for its reply.
func (r *adminRig) say(t *testing.T, chat, user, id, text string) {
	t.Helper()
	r.deliver(t, botgw.Inbound{Chat: key(t, chat), Kind: botgw.KindText, ID: id, UserID: user, Text: text})
	r.total++
	deadline := time.Now().Add(5 * time.Second)
	for r.replies() < r.total {
		if time.Now().After(deadline) {
			t.Fatalf("no reply to %q within 5s", text)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *adminRig) replies() int {
	n := 0
	for _, rec := range r.sent {
		n += len(rec.Sent())
	}
	return n
}

func (r *adminRig) deliver(t *testing.T, in botgw.Inbound) {
	t.Helper()
	if err := r.eng.Handle(context.Background(), in); err != nil {
		t.Fatalf("handle %s: %v", in.ID, err)
	}
}

// do makes one admin request and decodes the JSON answer into out (if
// non-nil); it returns the status and the raw body.
func (r *adminRig) do(t *testing.T, method, path, token, body string, out any) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	r.h.ServeHTTP(w, req)
	b, _ := io.ReadAll(w.Result().Body)
	if out != nil && w.Code < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: non-JSON answer %q", method, path, b)
		}
	}
	return w.Code, b
}

func key(t *testing.T, s string) botgw.ChatKey {
	t.Helper()
	k, err := botgw.ParseChatKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
