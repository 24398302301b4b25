package whatsapp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"

	"github.com/botgw/botgw"
	"github.com/botgw/botgw/internal/syncbuf"
	"github.com/botgw/botgw/internal/wait"
)

// fakeClient stands in for *whatsmeow.Client: it records what the adapter
// does and lets the test emit whatsmeow events to the registered handler.
type fakeClient struct {
	mu         sync.Mutex
	handler    whatsmeow.EventHandlerWithSuccessStatus
	connected  bool
	connectErr []error // returned by successive connects; then nil
	sendErr    []error // returned by successive sends; then success
	failErr    error   // returned by every send after failIn more succeed
	failIn     int
	sent       []sentMessage
	attempts   []sentMessage // every SendMessage call, failed or not
	reads      []readReceipt
	presences  []types.ChatPresence
	online     []types.Presence // SendPresence calls WhatsApp accepted
	presErr    []error          // returned by successive SendPresence calls; then success
	connects   int
	pn, lid    types.JID
	lidToPN    map[types.JID]types.JID // the device store's LID map
	pnToLID    map[types.JID]types.JID // likewise, the other way
	directory  map[types.JID]types.JID // what GetUserInfo answers: phone JID → LID
	lookups    [][]types.JID           // GetUserInfo calls
	lookupErr  []error                 // returned by successive GetUserInfo calls; then the directory
	media      map[string][]byte       // what Download answers, by direct path (absent: 404)
	calls      chan string             // "connect", "disconnect", "send", "read", "composing", "paused", "presence available"
}

type sentMessage struct {
	to   types.JID
	text string
	id   types.MessageID // SendRequestExtra.ID ("" when none was given)
}

type readReceipt struct {
	id           types.MessageID
	ts           time.Time
	chat, sender types.JID
}

var (
	botPN  = types.NewJID("447700900999", types.DefaultUserServer)
	botLID = types.NewJID("99887766554433", types.HiddenUserServer)
)

func newFakeClient() *fakeClient {
	return &fakeClient{pn: botPN, lid: botLID, lidToPN: map[types.JID]types.JID{},
		pnToLID: map[types.JID]types.JID{}, directory: map[types.JID]types.JID{}, calls: make(chan string, 1000)}
}

func (f *fakeClient) record(call string) { f.calls <- call }

func (f *fakeClient) ConnectContext(ctx context.Context) error {
	f.mu.Lock()
	f.connects++
	var err error
	if len(f.connectErr) > 0 {
		err, f.connectErr = f.connectErr[0], f.connectErr[1:]
	}
	f.connected = err == nil
	f.mu.Unlock()
	f.record("connect")
	return err
}

func (f *fakeClient) IsLoggedIn() bool { return f.IsConnected() }

func (f *fakeClient) AnswerRetriesWith(func(requester, to types.JID, id types.MessageID) *waE2E.Message) {
}

func (f *fakeClient) DeviceID() types.JID {
	return types.JID{User: f.pn.User, Device: 7, Server: types.DefaultUserServer}
}

func (f *fakeClient) ForgetDevice(context.Context, types.JID) error {
	f.record("forget")
	return nil
}

func (f *fakeClient) Disconnect() {
	f.mu.Lock()
	f.connected = false
	f.mu.Unlock()
	f.record("disconnect")
}

func (f *fakeClient) IsConnected() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.connected
}

func (f *fakeClient) AddEventHandlerWithSuccessStatus(h whatsmeow.EventHandlerWithSuccessStatus) uint32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handler = h
	return 1
}

func (f *fakeClient) SendMessage(_ context.Context, to types.JID, m *waE2E.Message, extra ...whatsmeow.SendRequestExtra) (whatsmeow.SendResponse, error) {
	f.mu.Lock()
	var err error
	if len(f.sendErr) > 0 {
		err, f.sendErr = f.sendErr[0], f.sendErr[1:]
	}
	if err == nil && f.failErr != nil {
		if f.failIn > 0 {
			f.failIn--
		} else {
			err = f.failErr
		}
	}
	sm := sentMessage{to: to, text: m.GetConversation()}
	if len(extra) == 1 {
		sm.id = extra[0].ID
	}
	f.attempts = append(f.attempts, sm)
	if err == nil {
		f.sent = append(f.sent, sm)
	}
	f.mu.Unlock()
	f.record("send")
	if err != nil {
		return whatsmeow.SendResponse{}, err
	}
	return whatsmeow.SendResponse{ID: "3EB0000000000000000000", Timestamp: time.Now()}, nil
}

func (f *fakeClient) MarkRead(_ context.Context, ids []types.MessageID, ts time.Time, chat, sender types.JID, _ ...types.ReceiptType) error {
	f.mu.Lock()
	f.reads = append(f.reads, readReceipt{id: ids[0], ts: ts, chat: chat, sender: sender})
	f.mu.Unlock()
	f.record("read")
	return nil
}

func (f *fakeClient) SendChatPresence(_ context.Context, _ types.JID, s types.ChatPresence, _ types.ChatPresenceMedia) error {
	f.mu.Lock()
	f.presences = append(f.presences, s)
	f.mu.Unlock()
	f.record(string(s))
	return nil
}

func (f *fakeClient) SendPresence(_ context.Context, p types.Presence) error {
	f.mu.Lock()
	var err error
	if len(f.presErr) > 0 {
		err, f.presErr = f.presErr[0], f.presErr[1:]
	}
	if err == nil {
		f.online = append(f.online, p)
	}
	f.mu.Unlock()
	f.record("presence " + string(p))
	return err
}

func (f *fakeClient) OwnIDs() (pn, lid types.JID) { return f.pn, f.lid }

func (f *fakeClient) PNForLID(_ context.Context, lid types.JID) (types.JID, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	pn, ok := f.lidToPN[lid]
	return pn, ok
}

func (f *fakeClient) LIDForPN(_ context.Context, pn types.JID) (types.JID, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	lid, ok := f.pnToLID[pn]
	return lid, ok
}

func (f *fakeClient) UserLIDs(_ context.Context, pns []types.JID) (map[types.JID]types.JID, error) {
	f.mu.Lock()
	f.lookups = append(f.lookups, pns)
	if len(f.lookupErr) > 0 {
		err := f.lookupErr[0]
		f.lookupErr = f.lookupErr[1:]
		f.mu.Unlock()
		f.record("userinfo")
		return nil, err
	}
	out := map[types.JID]types.JID{}
	for _, pn := range pns {
		if lid, ok := f.directory[pn]; ok {
			out[pn] = lid
		}
	}
	f.mu.Unlock()
	f.record("userinfo")
	return out, nil
}

// emit hands evt to the adapter's handler, as whatsmeow's event loop does,
// and returns the handler's success status (false: no ack).
func (f *fakeClient) emit(t *testing.T, evt any) bool {
	t.Helper()
	wait.Eventually(t, "event handler registered", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.handler != nil
	})
	f.mu.Lock()
	h := f.handler
	f.mu.Unlock()
	return h(evt)
}

func (f *fakeClient) sentTexts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, s := range f.sent {
		out = append(out, s.text)
	}
	return out
}

func (f *fakeClient) connectCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.connects
}

// waitCall waits until the client was asked to do call (skipping others).
func (f *fakeClient) waitCall(t *testing.T, call string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case c := <-f.calls:
			if c == call {
				return
			}
		case <-timeout:
			t.Fatalf("client never got %q", call)
		}
	}
}

var testTiming = timing{
	backoffMin:     time.Millisecond,
	backoffMax:     5 * time.Millisecond,
	connectTimeout: 5 * time.Second,
	relinkPoll:     5 * time.Millisecond,
	keepAliveMax:   time.Minute,
	banRetry:       time.Hour,
	healthyAfter:   time.Minute,
	stormWindow:    time.Minute,
	stormCount:     1000,
	resumePoll:     5 * time.Millisecond,
	holdRecheck:    time.Millisecond,
	holdPoll:       time.Millisecond,
	reachOutHold:   24 * time.Hour,
	forbiddenHold:  2 * time.Hour,
	poisonAfter:    3,
	sendAttempts:   3,
	sendBackoff:    time.Millisecond,
	rateLimitPause: time.Hour,
	typingEvery:    5 * time.Millisecond,
	storeAttempts:  3,
	storeTimeout:   5 * time.Second,
	storeBackoff:   time.Millisecond,
	slowStore:      time.Second,
	watchdog:       20 * time.Millisecond,
}

// testAdapter builds an adapter whose linked device is f (or whatever open
// returns), with short waits.
func testAdapter(cfg Config, lease Lease, open func(context.Context) (client, error)) (*Adapter, *syncbuf.Buffer) {
	logs := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a := newAdapter(cfg, lease, log, open)
	a.tm = testTiming
	a.shared = testShared()
	if cfg.LeaseTTL == 0 {
		a.ttl = time.Hour
	}
	return a, logs
}

func openFake(f *fakeClient) func(context.Context) (client, error) {
	return func(context.Context) (client, error) { return f, nil }
}

// listen runs a.Listen until the test ends and returns a wait for its end.
func listen(t *testing.T, a *Adapter, deliver botgw.Deliver) (cancel func()) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Listen(ctx, deliver) }()
	cancel = sync.OnceFunc(func() {
		stop()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Listen returned %v, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Listen did not return after cancel")
		}
	})
	t.Cleanup(cancel)
	return cancel
}

// testRedis is the in-process Redis of the package's tests, started by
// TestMain outside any synctest bubble; each adapter gets a prefix of its
// own, unless a test shares one between replicas.
var (
	testRedis   *miniredis.Miniredis
	testPrefixN atomic.Int64
)

func TestMain(m *testing.M) {
	testRedis = miniredis.NewMiniRedis()
	if err := testRedis.Start(); err != nil {
		panic(err)
	}
	code := m.Run()
	testRedis.Close()
	os.Exit(code)
}

func testShared() *shared {
	rdb := redis.NewClient(&redis.Options{Addr: testRedis.Addr()})
	return &shared{rdb: rdb, prefix: fmt.Sprintf("t%d", testPrefixN.Add(1))}
}

var errNetwork = errors.New("dial tcp: connect: network is unreachable")

// drop ends the connection as the server would (IsConnected turns false).
func (f *fakeClient) drop() {
	f.mu.Lock()
	f.connected = false
	f.mu.Unlock()
}

// Download answers from f.media by the message's direct path, as
// whatsmeow's Download would after decrypting; an unknown path is the
// CDN's 404.
func (f *fakeClient) Download(_ context.Context, msg whatsmeow.DownloadableMessage) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if data, ok := f.media[msg.GetDirectPath()]; ok {
		return data, nil
	}
	return nil, whatsmeow.ErrMediaDownloadFailedWith404
}
