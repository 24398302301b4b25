package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/channels/pace/pacetest"
)

const (
	testToken  = "7000000001:AAH-test_Token"
	testSecret = "s3cret-Token_1"
	testBot    = "botgw_test_bot"
)

// apiCall is one Bot API request the fake received.
type apiCall struct {
	method string
	params map[string]string // form fields; nested objects as JSON text
}

// reply is a scripted Bot API answer: HTTP status and JSON body.
type reply struct {
	status int
	body   string
}

// fakeAPI is a local Bot API server speaking Telegram's wire format:
// POST /bot<token>/<method>, multipart/form-data or JSON parameters,
// {"ok":true,"result":...} or {"ok":false,"error_code":...,"description":...}.
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	calls    []apiCall
	scripted map[string][]reply // per method, used before the defaults
	updates  []json.RawMessage  // pending getUpdates results, oldest first
	changed  chan struct{}      // closed and replaced on every call or push
	nextID   int
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{t: t, scripted: map[string][]reply{}, changed: make(chan struct{}), nextID: 5000}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+testToken+"/")
	if !ok || r.Method != http.MethodPost {
		writeJSON(w, reply{404, `{"ok":false,"error_code":404,"description":"Not Found"}`})
		return
	}
	params := f.parseParams(r)
	f.record(apiCall{method: method, params: params})
	if rep, ok := f.nextScripted(method); ok {
		writeJSON(w, rep)
		return
	}
	if method == "getUpdates" {
		f.serveUpdates(w, r, params)
		return
	}
	writeJSON(w, f.answer(method, params))
}

// parseParams reads multipart (the library) or JSON (our poller) bodies.
// Methods without parameters (getMe) come with an empty body.
func (f *fakeAPI) parseParams(r *http.Request) map[string]string {
	out := map[string]string{}
	body, err := io.ReadAll(r.Body)
	if err != nil || len(body) == 0 {
		return out
	}
	ct, ps, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "multipart/form-data":
		form, err := multipart.NewReader(bytes.NewReader(body), ps["boundary"]).ReadForm(1 << 20)
		if err != nil {
			f.t.Errorf("fake Bot API: bad multipart body: %v", err)
			return out
		}
		for k, v := range form.Value {
			out[k] = v[0]
		}
	case "application/json":
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			f.t.Errorf("fake Bot API: bad JSON body: %v", err)
		}
		for k, v := range m {
			out[k] = strings.Trim(string(v), `"`)
		}
	default:
		f.t.Errorf("fake Bot API: unexpected Content-Type %q", ct)
	}
	return out
}

func (f *fakeAPI) record(c apiCall) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
	f.notifyLocked()
}

func (f *fakeAPI) notifyLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *fakeAPI) nextScripted(method string) (reply, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.scripted[method]
	if len(q) == 0 {
		return reply{}, false
	}
	f.scripted[method] = q[1:]
	return q[0], true
}

// answer gives Telegram's answer to a successful call of method.
func (f *fakeAPI) answer(method string, p map[string]string) reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch method {
	case "getMe":
		return reply{200, `{"ok":true,"result":{"id":7000000001,"is_bot":true,"first_name":"Botgw Test","username":"` + testBot + `","can_join_groups":true,"can_read_all_group_messages":false,"supports_inline_queries":false}}`}
	case "setWebhook":
		return reply{200, `{"ok":true,"result":true,"description":"Webhook was set"}`}
	case "deleteWebhook":
		return reply{200, `{"ok":true,"result":true,"description":"Webhook is already deleted"}`}
	case "sendMessage":
		f.nextID++
		msg, _ := json.Marshal(map[string]any{"message_id": f.nextID, "date": time.Now().Unix(), "text": p["text"],
			"from": map[string]any{"id": 7000000001, "is_bot": true, "first_name": "Botgw Test", "username": testBot},
			"chat": map[string]any{"id": json.RawMessage(p["chat_id"]), "type": "private"}})
		return reply{200, `{"ok":true,"result":` + string(msg) + `}`}
	case "setMyCommands", "sendChatAction":
		return reply{200, `{"ok":true,"result":true}`}
	}
	return reply{404, `{"ok":false,"error_code":404,"description":"Not Found: method not found"}`}
}

// serveUpdates answers a long poll like Telegram: every pending update with
// update_id >= offset, or, when there is none, waits for one or for the
// client to give up.
func (f *fakeAPI) serveUpdates(w http.ResponseWriter, r *http.Request, p map[string]string) {
	var offset int64
	_ = json.Unmarshal([]byte(p["offset"]), &offset)
	for {
		f.mu.Lock()
		var batch []json.RawMessage
		for _, u := range f.updates {
			var head struct {
				ID int64 `json:"update_id"`
			}
			_ = json.Unmarshal(u, &head)
			if head.ID >= offset {
				batch = append(batch, u)
			}
		}
		changed := f.changed
		f.mu.Unlock()
		if len(batch) > 0 {
			body, _ := json.Marshal(map[string]any{"ok": true, "result": batch})
			writeJSON(w, reply{200, string(body)})
			return
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

func (f *fakeAPI) script(method string, replies ...reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scripted[method] = append(f.scripted[method], replies...)
}

func (f *fakeAPI) pushUpdates(updates ...[]byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, u := range updates {
		f.updates = append(f.updates, u)
	}
	f.notifyLocked()
}

func (f *fakeAPI) allCalls() []apiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]apiCall(nil), f.calls...)
}

// callsTo returns the requests made to method, in order.
func (f *fakeAPI) callsTo(method string) []apiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []apiCall
	for _, c := range f.calls {
		if c.method == method {
			out = append(out, c)
		}
	}
	return out
}

// waitFor blocks until cond holds over the calls so far. The deadline only
// guards against a hung test; it is not a speed assertion.
func (f *fakeAPI) waitFor(cond func() bool) {
	f.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		f.mu.Lock()
		changed := f.changed
		f.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			f.t.Fatal("timed out waiting for the fake Bot API")
		}
	}
}

func writeJSON(w http.ResponseWriter, r reply) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	_, _ = io.WriteString(w, r.body)
}

// testAdapter builds an adapter against the fake, ran Start (getMe), and
// records every wait instead of sleeping.
type testAdapter struct {
	*adapter
	ch     botgw.Channel
	api    *fakeAPI
	slept  []time.Duration
	sleepM sync.Mutex
	clock  *pacetest.Clock // the send limits' fake clock
}

func newTestAdapter(t *testing.T, cfg Config, publicURL string) *testAdapter {
	t.Helper()
	api := newFakeAPI(t)
	cfg.Token, cfg.APIURL = testToken, api.srv.URL
	if cfg.Mode != ModePolling {
		cfg.WebhookSecret = testSecret
	}
	pacer, clock := pacetest.New(t)
	ch, err := New(cfg, publicURL, pacer, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ta := &testAdapter{ch: ch, api: api, clock: clock}
	switch c := ch.(type) {
	case webhookChannel:
		ta.adapter = c.adapter
	case pollingChannel:
		ta.adapter = c.adapter
	}
	ta.sleep = func(ctx context.Context, d time.Duration) error {
		ta.sleepM.Lock()
		defer ta.sleepM.Unlock()
		if d > 0 {
			ta.slept = append(ta.slept, d)
		}
		return ctx.Err()
	}
	if err := ta.Start(t.Context()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return ta
}

// recorder is a botgw.Deliver that stores like the real store: a message
// whose (chat, ID) it already holds is accepted but not stored again.
type recorder struct {
	mu     sync.Mutex
	stored []botgw.Inbound
	calls  int
	err    error // returned by every call when set
}

func (r *recorder) deliver(_ context.Context, in botgw.Inbound) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.err != nil {
		return r.err
	}
	for _, s := range r.stored {
		if s.Chat == in.Chat && s.ID == in.ID {
			return nil
		}
	}
	r.stored = append(r.stored, in)
	return nil
}

func (r *recorder) snapshot() (stored []botgw.Inbound, calls int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]botgw.Inbound(nil), r.stored...), r.calls
}

func readSample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeSample(t *testing.T, name string) *models.Update {
	t.Helper()
	var u models.Update
	if err := json.Unmarshal(readSample(t, name), &u); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &u
}
